// The verifier page: fetch a bout's export (or take a pasted / opened one) and check it in the
// browser with verifier.js, reading the JSON text as Python does (pyjson.js). An export that
// does not end with the close is shown as partial, up to its last event; one this browser
// cannot read exactly (integers beyond 2^53) is said to be so, never given another verdict.
// window.refereeVerify is there for scripts and tests.

import { attempt, el, fill, fragment, say, ServiceError } from "./api.js";
import { CannotVerifyHere, NotAnExport, verifyExport, verifyExportText } from "./verifier.js";
import { checkAgainstMemory } from "./witness.js";
import "./skip.js"; // the skip link moves the focus, not the address (its fragment)

const $ = (id) => document.getElementById(id);

/** The bout the page's address names (#bout=ID), or null: what a pasted or opened export is
 * held to. A fragment without a bout (the skip link's #main) leaves it as it was. */
let addressed = null;

/**
 * Check one export's text. `asked` is the bout the reader asked for (the id fetched, or the
 * page's `#bout=ID` for a pasted or opened file), or null: an export of another bout is said
 * to be so, and never gets a plain "Verified." for the one asked for.
 */
async function run(text, asked = null) {
  let report;
  try {
    report = await verifyExportText(text, { partial: true });
  } catch (err) {
    if (err instanceof CannotVerifyHere) return cannot(err, text, asked);
    if (err instanceof NotAnExport) throw err;
    throw new Error(`could not verify: ${err.message}`);
  }
  const doc = JSON.parse(text);
  render(report, doc);
  const bout = doc.bout || {};
  const other = otherBout(bout, asked);
  showChecked(bout, asked);
  // What this browser was shown of the bout (its commitment, client seed, the newest event it
  // saw), checked without being asked: a rewrite made whole holds together by itself.
  const memory = checkAgainstMemory(doc);
  showMemory(memory, true);
  report.memory = memory;
  report.bout = { id: bout.id, name: bout.name, asked, other };
  const verdict = $("verdict");
  if (other) {
    verdict.className = "verdict bad";
    verdict.textContent = `Not the bout asked for: this export is of ${boutWords(bout)}, not of bout ${asked}. ${itself(report)}`;
    say(`This export is of another bout (${boutWords(bout)}) than the one asked for (bout ${asked}): it says nothing of bout ${asked}.`, "error");
    return report;
  }
  if (memory && !memory.ok) {
    if (report.ok) {
      verdict.className = "verdict bad";
      verdict.textContent = `Rejected: this export does not match what this browser was shown of this bout (see below). ${itself(report)}`;
    }
    say("The export does not match what this browser was shown of this bout: see the report.", "error");
    return report;
  }
  const said = { verified: "Verified.", partial: "Partial: verified up to its last event." };
  say(said[report.verdict] || "The export does not verify: see the report.", report.ok ? "ok" : "error");
  return report;
}

/** Whether an export of `bout` is of another bout than the one asked for. */
function otherBout(bout, asked) {
  return typeof asked === "string" && asked !== "" && bout.id !== asked;
}

/** "bout b1 “Spar”": the bout as its export names it. */
function boutWords(bout) {
  const id = typeof bout.id === "string" ? bout.id : JSON.stringify(bout.id === undefined ? null : bout.id);
  return typeof bout.name === "string" ? `bout ${id} “${bout.name}”` : `bout ${id}`;
}

/** What the export is by itself, when what this page holds it to says otherwise. */
function itself(report) {
  const counts = `${report.events} events, ${report.rolls} rolls, ${report.seeds} seed(s)`;
  if (report.verdict === "verified") return `By itself it holds together (${counts}, ending with the close), as an export rewritten whole does.`;
  if (report.verdict === "partial") return `By itself it holds together up to event ${report.last.seq} (${counts}; not closed).`;
  return `By itself it is rejected too: ${report.first.toString()}`;
}

/** Which bout was checked (as its export names it), and whether it is the one asked for. */
function showChecked(bout, asked) {
  const box = $("checked");
  box.hidden = false;
  const system = typeof bout.system === "string" ? ` (${bout.system.toUpperCase()})` : "";
  if (otherBout(bout, asked)) {
    box.className = "verdict bad";
    box.textContent = `Checked ${boutWords(bout)}${system}: NOT bout ${asked}, the bout asked for.`;
  } else {
    box.className = "checked";
    box.textContent = `Checked ${boutWords(bout)}${system}${asked ? ", the bout asked for" : ""}.`;
  }
}

/** What this browser kept of the bout against the export (`memory`: checkAgainstMemory's
 * answer); `checked` false hides the box (nothing checked yet). */
function showMemory(memory, checked = false) {
  const box = $("memory");
  box.hidden = !checked;
  if (!checked) return;
  if (memory === null) {
    box.className = "hint";
    box.textContent =
      "This browser kept nothing of this bout, so it cannot tell this export from one rewritten whole: check it " +
      "in a browser that followed the bout, or with referee verify --expect-hash and a hash a player kept.";
    return;
  }
  box.className = `verdict ${memory.ok ? "ok" : "bad"}`;
  const head = memory.ok ? "Matches what this browser saw of this bout: " : "Does NOT match what this browser saw of this bout: ";
  box.textContent = head + memory.lines.join("; ") + ".";
}

function cannot(err, text, asked) {
  const verdict = $("verdict");
  verdict.className = "verdict pending";
  verdict.textContent = `Cannot verify here: ${err.message}`;
  showMemory(null);
  for (const id of ["problems", "facts", "rolls", "rulings"]) fill($(id), []);
  let bout = {};
  try {
    bout = JSON.parse(text).bout || {};
  } catch {
    // read as Python reads it, it is an export; JSON.parse only names its bout here
  }
  showChecked(bout, asked);
  if (otherBout(bout, asked)) {
    say(`This export is of another bout (${boutWords(bout)}) than the one asked for (bout ${asked}), and it cannot be verified in a browser.`, "error");
  } else {
    say("This export cannot be verified in a browser.", "error");
  }
  return { verdict: "cannot", message: err.message };
}

function verdictText(report) {
  const counts = `${report.events} events, ${report.rolls} rolls, ${report.seeds} seed(s)`;
  if (report.verdict === "verified") {
    return `Verified: ${counts}. It ends with the close; chain, commitment, nonces, times, header and every face check out.`;
  }
  if (report.verdict === "partial") {
    const { seq, type } = report.last;
    const unchecked = report.skipped.find((s) => s.startsWith("faces:"));
    return (
      `Partial: ${counts}, verified up to event ${seq} (${type}); the export does not end with the close ` +
      `(the bout is still going, or the export was cut short).` +
      (unchecked ? ` Not checked yet: ${unchecked.replace(/^faces: /, "")} (until the seed is revealed).` : "")
    );
  }
  return `Rejected: ${report.first.toString()}`;
}

function render(report, doc) {
  const verdict = $("verdict");
  verdict.className = `verdict ${{ verified: "ok", partial: "pending" }[report.verdict] || "bad"}`;
  verdict.textContent = verdictText(report);
  fill($("problems"), report.problems.map((p) => el("li", {}, p.toString())));
  fill(
    $("rulings"),
    report.rulings.length
      ? report.rulings.map((r) => el("li", {}, r.toString()))
      : [el("li", { class: "none" }, "none: every result here was decided by the dice")],
  );
  const bout = doc.bout || {};
  const facts = [
    ["bout", `${bout.name || ""} (${bout.id || "?"}, ${bout.system || "?"})`],
    ["commitment", doc.fairness.commitment],
    ["server seed", doc.fairness.server_seed || "not revealed yet"],
    ["client seed", doc.fairness.client_seed],
    ["checked", report.checks.join(", ")],
    ["not checked here", report.skipped.join("; ")],
  ];
  fill($("facts"), facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, el("code", {}, String(v)))]));
  fill(
    $("rolls"),
    report.rows.map((r) =>
      el(
        "tr",
        { class: r.ok ? "ok" : "bad" },
        el("th", { scope: "row" }, `#${r.seq}`),
        // The verdict first: on a phone the row's later cells scroll sideways.
        el("td", {}, r.ok ? "✓ ok" : `✗ ${r.problem}`),
        el("td", {}, Array.isArray(r.payload && r.payload.dice) ? r.payload.dice.join(" ") : "?"),
        el("td", {}, Array.isArray(r.payload && r.payload.faces) ? r.payload.faces.join(" ") : "?"),
        el("td", {}, r.expected ? r.expected.join(" ") : "-"),
        el("td", {}, String(r.seed)),
        el("td", {}, r.stream ? `${r.nonce} of ${r.stream}` : String(r.nonce)),
      ),
    ),
  );
}

async function fetchAndVerify(id) {
  let response;
  try {
    response = await fetch(`/api/bouts/${encodeURIComponent(id)}/export`, { cache: "no-store" });
  } catch (err) {
    throw new ServiceError(0, "network", `the service cannot be reached (${err.message})`);
  }
  const text = await response.text();
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try {
      message = JSON.parse(text).message || message;
    } catch {
      // not JSON: keep the status
    }
    throw new ServiceError(response.status, "http_error", message);
  }
  return run(text, id);
}

function checkJson(text) {
  try {
    JSON.parse(text);
  } catch (err) {
    throw new Error(`the export is not valid JSON (${err.message})`);
  }
  return text;
}

/**
 * Clear the last report before anything new is checked (and as soon as an input changes), so
 * that no verdict about one export stands beside another export or an error.
 */
function clearReport(text) {
  const verdict = $("verdict");
  verdict.className = "verdict";
  verdict.textContent = text;
  $("checked").hidden = true;
  showMemory(null);
  for (const id of ["problems", "facts", "rolls", "rulings"]) fill($(id), []);
  say("");
}

/** Check one input: the report is cleared first; a failure is the verdict, not beside one. */
async function check(work) {
  clearReport("Checking…");
  const result = await attempt(work);
  if (result === undefined) {
    const verdict = $("verdict");
    verdict.className = "verdict bad";
    verdict.textContent = `Not verified: ${$("message").textContent}`;
  }
  return result;
}

$("fetch-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const id = $("bout-id").value.trim();
  check(async () => {
    if (!id) throw new Error("give a bout id");
    return fetchAndVerify(id);
  });
});

$("paste-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  check(async () => {
    const file = $("export-file").files[0];
    const text = file ? await file.text() : $("export-text").value;
    if (!text.trim()) throw new Error("paste an export or choose a file first");
    // A file or a paste is held to the bout in the page's address (#bout=ID), if any.
    return run(checkJson(text), addressed);
  });
});

for (const form of ["fetch-form", "paste-form"]) {
  $(form).addEventListener("input", () => clearReport("Not checked yet: the input changed. Press the button to check it."));
}

window.refereeVerify = { verifyExport, verifyExportText, run };

/** The bout in the page's address is fetched and checked: at once, and whenever the address
 * names another. */
function fromAddress() {
  const params = fragment();
  if (!params.bout) return;
  addressed = params.bout;
  $("bout-id").value = params.bout;
  check(() => fetchAndVerify(params.bout));
}
window.addEventListener("hashchange", fromAddress);
fromAddress();

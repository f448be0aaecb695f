// The verifier page: fetch a closed bout's export (or take a pasted / opened one) and check
// it in the browser with verifier.js. window.refereeVerify is there for scripts and tests.

import { attempt, call, el, fill, fragment, say } from "./api.js";
import { NotAnExport, verifyExport } from "./verifier.js";

const $ = (id) => document.getElementById(id);

async function run(doc) {
  let report;
  try {
    report = await verifyExport(doc);
  } catch (err) {
    if (err instanceof NotAnExport) throw err;
    throw new Error(`could not verify: ${err.message}`);
  }
  render(report, doc);
  say(report.ok ? "Verified." : "The export does not verify: see the report.", report.ok ? "ok" : "error");
  return report;
}

function render(report, doc) {
  const verdict = $("verdict");
  const pending = !report.ok && report.first.seq === null && report.first.message.includes("not revealed yet");
  verdict.className = `verdict ${report.ok ? "ok" : pending ? "pending" : "bad"}`;
  verdict.textContent = report.ok
    ? `Verified: ${report.events} events, ${report.rolls} rolls, ${report.seeds} seed(s). Chain, commitment, nonces and every face check out.`
    : pending
      ? `Not verifiable yet (the referee has not closed the bout): ${report.first.toString()}`
      : `Rejected: ${report.first.toString()}`;
  fill($("problems"), report.problems.map((p) => el("li", {}, p.toString())));
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
        el("td", {}, String(r.seed)),
        el("td", {}, String(r.nonce)),
        el("td", {}, Array.isArray(r.payload && r.payload.dice) ? r.payload.dice.join(" ") : "?"),
        el("td", {}, Array.isArray(r.payload && r.payload.faces) ? r.payload.faces.join(" ") : "?"),
        el("td", {}, r.expected ? r.expected.join(" ") : "-"),
        el("td", {}, r.ok ? "✓ ok" : `✗ ${r.problem}`),
      ),
    ),
  );
}

async function fetchAndVerify(id) {
  const doc = await call("GET", `/api/bouts/${encodeURIComponent(id)}/export`);
  return run(doc);
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`the export is not valid JSON (${err.message})`);
  }
}

$("fetch-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const id = $("bout-id").value.trim();
  if (!id) return say("Give a bout id.", "error");
  attempt(() => fetchAndVerify(id));
});

$("paste-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  attempt(async () => {
    const file = $("export-file").files[0];
    const text = file ? await file.text() : $("export-text").value;
    if (!text.trim()) throw new Error("paste an export or choose a file first");
    return run(parse(text));
  });
});

window.refereeVerify = { verifyExport, run };

const params = fragment();
if (params.bout) {
  $("bout-id").value = params.bout;
  attempt(() => fetchAndVerify(params.bout));
}

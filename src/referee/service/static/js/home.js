// The home page: start a bout, add its fighters, hand out the links. Tokens travel only in
// a link's fragment (#...), which browsers never send to the server.

import { ServiceError, attempt, call, el, fill, say, seedPart } from "./api.js";
import { forget, forgetAll, myBouts, pageOf, remember, restate, roleWords } from "./mybouts.js";
import { qrToggle } from "./qr.js";
import { sawClientSeed, sawView } from "./witness.js";
import { systemSpec } from "./systems.js";
import { confirmAction, copyButton, fieldSet, gate, stateWords } from "./ui.js";
import { focusLost, noteFocus, putFocusBack } from "./focus.js";
import "./skip.js"; // the skip link moves the focus, not the address (its fragment)

const $ = (id) => document.getElementById(id);
const rows = [];
let made = 0;
const DEFAULTS = [
  { name: "Tarl", side: "Ko-ro-ba", cs: 65, x: 0, y: 0, facing: 0 },
  { name: "Pa-Kur", side: "Assassins", cs: 70, x: 1.5, y: 0, facing: 180 },
];

function addRow(preset = {}) {
  made += 1;
  const index = made;
  const spec = systemSpec($("system").value);
  const fields = spec.fighter.map((f) => (preset[f.key] !== undefined ? { ...f, value: preset[f.key] } : f));
  const set = fieldSet(fields, `f${index}`);
  const name = el("input", { id: `f${index}-name`, required: true, maxlength: 40, value: preset.name || "", autocomplete: "off" });
  const side = el("input", { id: `f${index}-side`, maxlength: 40, value: preset.side || "", autocomplete: "off" });
  const row = el(
    "fieldset",
    { class: "fighter-row" },
    el("legend", {}, `Fighter ${index}`),
    el("div", { class: "field" }, el("label", { for: name.id }, "Name"), name),
    el("div", { class: "field" }, el("label", { for: side.id }, "Side (empty: its own)"), side),
    set.nodes,
  );
  const entry = { row, name, side, set, spec };
  row.append(
    el("button", { type: "button", class: "small", onclick: () => removeRow(entry) }, `Remove fighter ${index}`),
  );
  rows.push(entry);
  $("fighter-rows").append(row);
  return entry;
}

/** A row removed from the keyboard leaves the focus beside it (the next row's field, else the
 * button that adds a row), not on the page. */
function removeRow(entry) {
  const kept = noteFocus($("fighter-rows"));
  rows.splice(rows.indexOf(entry), 1);
  entry.row.remove();
  if (kept && focusLost()) {
    const next = rows.find((r) => entry.row.compareDocumentPosition(r.row) & Node.DOCUMENT_POSITION_FOLLOWING);
    (next ? next.name : $("add-row")).focus();
  }
}

function resetRows() {
  rows.splice(0).forEach((r) => r.row.remove());
  made = 0;
  DEFAULTS.forEach((d) => addRow(d));
}

function readRules() {
  const text = $("rules").value.trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ServiceError(0, "bad_request", `the rule pack is not valid JSON (${err.message})`);
  }
}

async function create() {
  const body = { system: $("system").value, name: $("bout-name").value.trim() };
  const seed = $("client-seed").value.trim();
  if (seed) body.client_seed = seed;
  const rules = readRules();
  if (rules !== undefined) body.rules = rules;
  const fighters = rows.map((r) => {
    const f = { name: r.name.value.trim(), ...r.spec.body(r.set.read()) };
    if (r.side.value.trim()) f.side = r.side.value.trim();
    return f;
  });
  const bout = await call("POST", "/api/bouts", { body });
  sawView(bout.id, bout); // the commitment and the client seed shown here, kept for the verifier
  const invites = {};
  for (const f of fighters) {
    try {
      // Each fighter's part of the client seed, drawn here, after the commitment was published:
      // the server cannot have chosen its seed to suit it.
      const added = await call("POST", `/api/bouts/${bout.id}/fighters`, {
        token: bout.referee_token,
        body: { ...f, client_seed: seedPart() },
      });
      invites[added.name] = added.token;
      sawClientSeed(bout.id, added.client_seed);
      bout.client_seed = added.client_seed; // the bout's, now with this fighter's part
    } catch (err) {
      keep(bout, invites, body);
      throw new ServiceError(err.status, err.code, `The bout was started, but fighter ${JSON.stringify(f.name)} was refused: ${err.message} (add it from the referee page)`);
    }
  }
  keep(bout, invites, body);
  return bout;
}

function keep(bout, invites, body) {
  started = bout;
  remember({ id: bout.id, role: "referee", fighter: null, token: bout.referee_token, name: body.name, system: body.system, state: "open: waiting for initiative" });
  renderMine();
  sessionStorage.setItem(`referee-invites-${bout.id}`, JSON.stringify(invites));
  show(bout, invites);
}

function show(bout, invites) {
  const id = encodeURIComponent(bout.id);
  $("referee-link").href = `${location.origin}/static/referee.html#bout=${id}&token=${encodeURIComponent(bout.referee_token)}`;
  $("board-link").href = `${location.origin}/static/board.html#bout=${id}`;
  $("verify-link").href = `${location.origin}/static/verify.html#bout=${id}`;
  $("commitment").textContent = bout.commitment;
  $("created-seed").textContent = bout.client_seed;
  fill(
    $("invite-links"),
    Object.entries(invites).map(([name, token]) => {
      const url = `${location.origin}/static/fighter.html#bout=${id}&token=${encodeURIComponent(token)}`;
      return el(
        "li",
        {},
        el("a", { href: url, class: "invite", dataset: { name } }, `Fighter page for ${name}`),
        " ",
        copyButton(() => url, `Copy ${name}'s invite link`),
        " ",
        el("code", {}, url),
        qrToggle(() => url, `QR code of ${name}'s invite link`),
      );
    }),
  );
  $("created").hidden = false;
  $("created").scrollIntoView();
}

// One press makes one bout: Start is disabled while the bout is made and stays so once it
// exists (even when a fighter was refused: its links are shown); "Start another bout" opens
// the form for a new one.
let started = null;

function startable(yes) {
  gate($("create"), yes ? null : started ? "This bout is started: its links are below. Press “Start another bout” for a new one." : "Starting the bout…");
  $("start-another").hidden = !started;
  $("create-hint").hidden = !started;
}

async function start() {
  if (started || $("create").disabled) return;
  startable(false);
  await attempt(create, (bout) => `Bout ${bout.id} started with ${rows.length} fighters.`);
  startable(!started);
  // Start was disabled while the bout was made, which dropped the keyboard's focus to the
  // page: it goes to the bout's links when it was made, else back to Start.
  if (focusLost()) (started ? $("created-h") : $("create")).focus();
}

function startAnother() {
  started = null;
  $("created").hidden = true;
  startable(true);
  say("");
  $("bout-name").focus();
}

$("system").addEventListener("change", resetRows);
$("add-row").addEventListener("click", () => addRow().name.focus());
$("start-another").addEventListener("click", startAnother);
$("create-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  start();
});
say("");
resetRows();

// ---- my bouts: kept in this browser (mybouts.js); their state asked of the service ---------

/** At most this many bouts have their state asked for when the page opens. */
const REFRESHED = 20;

function renderMine() {
  // Drawn again when the page has asked where each bout stands, and on each Forget: the
  // focus stays on the same control, or the one now where it was (focus.js).
  const kept = noteFocus($("mine"));
  const entries = myBouts();
  $("mine").hidden = !entries.length;
  fill(
    $("my-bouts"),
    entries.map((entry) => {
      const name = entry.name || entry.id;
      return el(
        "li",
        { class: "my-bout", dataset: { id: entry.id, role: roleWords(entry) } },
        el("a", { href: pageOf(entry) }, name),
        " ",
        el("span", { class: "badge" }, roleWords(entry)),
        entry.system ? el("span", { class: "muted" }, ` ${entry.system.toUpperCase()}`) : null,
        el("span", { class: "my-state" }, entry.state || "…"),
        el(
          "button",
          { type: "button", class: "small", "aria-label": `Forget ${name} (${roleWords(entry)})`, onclick: () => (forget(entry), renderMine()) },
          "Forget",
        ),
      );
    }),
  );
  if (kept && !putFocusBack(kept) && focusLost()) $("system").focus(); // the list is gone
}

/** Where each kept bout stands now, asked of the service with the entry's own token. */
async function refreshMine() {
  for (const entry of myBouts().slice(0, REFRESHED)) {
    let words;
    try {
      const base = `/api/bouts/${encodeURIComponent(entry.id)}`;
      const view = await call("GET", base, { token: entry.token || null });
      sawView(entry.id, view);
      words = stateWords(view, entry.fighter || null);
    } catch (err) {
      words =
        err.status === 401
          ? "this link no longer works (a new one was made, or the bout was handed over)"
          : err.status === 404
            ? "no such bout on this service"
            : `not reached: ${err.message}`;
    }
    restate(entry, words);
  }
  renderMine();
}

$("forget-all").addEventListener("click", async () => {
  const yes = await confirmAction({
    title: "Forget every bout in this list?",
    lines: ["The links and their tokens are removed from this browser. The bouts go on; to open one again you need its link."],
    yes: "Forget all",
    no: "Keep the list",
    danger: true,
  });
  if (!yes) return;
  forgetAll();
  renderMine();
});
renderMine();
refreshMine();

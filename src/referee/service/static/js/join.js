// The join page (join.html#bout=ID): a fighter joins an open bout by itself, optionally with
// its own part of the client seed, and lands on its fighter page. The token it gets back goes
// only into that page's fragment (#...), which browsers never send to the server.

import { Bout, ServiceError, el, fill, fragment, say, seedPart } from "./api.js";
import { remember } from "./mybouts.js";
import { systemSpec } from "./systems.js";
import { fieldSet } from "./ui.js";
import { focusLost, usable } from "./focus.js";
import "./skip.js"; // the skip link moves the focus, not the address (its fragment)

const $ = (id) => document.getElementById(id);
const params = fragment();
const state = { bout: null, view: null, spec: null, fields: null };

/** What to do next, added to the service's message (matched on the service's own words). */
const ADVICE = [
  [/only before initiative/, "The bout has begun: ask the referee to add you from the referee page."],
  [/already a fighter called/, "Choose another name."],
  [/client seed is fixed/, "A roll was already made: join without a client seed part."],
  [/^no bout/, "The join link is wrong, or the bout was deleted: ask the referee for the link."],
];

/** The service's message with advice on what to do about it. */
function explain(err) {
  const text = err instanceof ServiceError ? err.message : String(err.message || err);
  const advice = ADVICE.find(([pattern]) => pattern.test(text));
  return advice ? `${text}. ${advice[1]}` : text;
}

if (!params.bout) {
  say("This page needs a bout in its address: join.html#bout=ID (ask the referee for the join link).", "error");
  $("status").textContent = "";
} else {
  start();
}

async function start() {
  state.bout = new Bout(params.bout);
  for (const link of document.querySelectorAll("[data-link]")) {
    link.href = `${link.dataset.link}#bout=${encodeURIComponent(params.bout)}`;
  }
  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    join();
  });
  $("join-draw").addEventListener("click", drawPart);
  // Editing the form clears the last refusal (while the bout is open: otherwise it stands).
  $("join-form").addEventListener("input", () => state.view && state.view.status === "open" && say(""));
  await load();
}

/** Read the bout's public state and show it; the form only while fighters may join. */
async function load({ quiet = false } = {}) {
  let view;
  try {
    view = await state.bout.get();
  } catch (err) {
    $("status").textContent = "";
    say(explain(err), "error");
    return null;
  }
  state.view = view;
  if (!state.spec) {
    state.spec = systemSpec(view.system);
    state.fields = fieldSet(state.spec.fighter, "join");
    fill($("join-fields"), state.fields.nodes);
  }
  document.title = `Join ${view.name} · referee`;
  $("title").textContent = `Join “${view.name}”`;
  $("status").textContent = `${view.system.toUpperCase()} · ${view.status}${view.closed ? " · closed" : ""}`;
  $("system-line").textContent = `Rule system: ${state.spec.title || view.system}.`;
  showFighters(view);
  $("join-seed-now").textContent = view.client_seed;
  // By default the fighter adds a part of its own, drawn here once the commitment is shown.
  if (open_(view) && !$("join-seed").value) $("join-seed").value = seedPart();
  const open = view.status === "open";
  $("join-form").hidden = false;
  $("join-submit").disabled = !open;
  if (!open && !quiet) say(`The bout is ${view.status}: fighters may join only before initiative. Ask the referee to add you from the referee page.`, "error");
  return view;
}

const open_ = (view) => view.status === "open";

function showFighters(view) {
  const names = view.fighters.map((f) => (f.side === f.name ? f.name : `${f.name} (side ${f.side})`));
  $("already").textContent = names.length ? `Already in: ${names.join(", ")}.` : "No fighters yet: you are the first.";
  const sides = [...new Set(view.fighters.map((f) => f.side))];
  fill($("join-sides"), sides.map((side) => el("option", { value: side })));
}

/** The request body: name, the system's stats (cs or sheet), side and seed part if given. */
function body() {
  const name = $("join-name").value.trim();
  if (!name) throw new Error("Name: give your fighter a name (1 to 40 characters).");
  const out = { name, ...state.spec.body(state.fields.read()) };
  const side = $("join-side").value.trim();
  if (side) out.side = side;
  const seed = $("join-seed").value;
  if (seed !== "") out.client_seed = seed;
  return out;
}

async function join() {
  const pressed = document.activeElement; // Join is disabled while it is sent: the focus comes back
  $("join-submit").disabled = true;
  try {
    const sent = body();
    let joined;
    try {
      joined = await state.bout.post("/join", sent);
    } catch (err) {
      // A roll before initiative fixed the client seed: join without a part, and say so.
      if (!(sent.client_seed && /client seed is fixed/.test(err.message))) throw err;
      delete sent.client_seed;
      joined = await state.bout.post("/join", sent);
      joined.note = "A roll had fixed the client seed already, so you joined without a part of it.";
    }
    say(`Joined as ${joined.name}. Client seed now ${joined.client_seed}. ${joined.note || ""} Opening your fighter page…`, "ok");
    // Kept in this browser's "My bouts" (home page), so the fighter page can be found again.
    const view = state.view || {};
    remember({ id: params.bout, role: "fighter", fighter: joined.name, token: joined.token, name: view.name, system: view.system, state: "open: waiting for initiative" });
    const id = encodeURIComponent(params.bout);
    location.assign(`/static/fighter.html#bout=${id}&token=${encodeURIComponent(joined.token)}`);
  } catch (err) {
    await load({ quiet: true }); // the status may have changed since the page was opened
    say(explain(err), "error");
    $("join-submit").disabled = !(state.view && state.view.status === "open");
    // Disabling Join dropped the keyboard's focus to the page: back where it was, else on the
    // name (the field to change after most refusals).
    if (focusLost()) (usable(pressed) ? pressed : $("join-name")).focus();
  }
}

/** 16 random hex digits from the browser's own generator (never the server's). */
function drawPart() {
  $("join-seed").value = seedPart();
  $("join-seed").focus();
}

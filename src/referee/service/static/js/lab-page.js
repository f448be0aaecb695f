// The balance lab page: edit a pack (formula boxes and fields, starting from the text's), and
// POST /api/lab/analyse redraws the heat map, the ladder and the text's tables as you type;
// an error in a formula is shown beside it. window.refereeLab is for tests and benchmarks:
// `version` counts redraws, `latency` is the last edit-to-redraw time in milliseconds.

import { call, el, fill, say } from "./api.js";
import "./skip.js"; // the skip link moves the focus, not the address (its fragment)

const $ = (id) => document.getElementById(id);
const FIELDS = ["success", "damage", "critical", "critical_effect", "critical_extra_damage",
  "initiative", "tie_break", "defeat_threshold"];
const TEXT = { success: "roll <= cs", damage: "min(4, ceil(roll / 15))", critical: "roll % 10 == 0" };
const TITLES = { hit: "% to Hit", damage: "Average Damage per Round", rounds: "Average Rounds to 15 Damage" };
const RATIOS = { hit: "% to Hit ratio", damage: "Average Damage Ratio" };

const state = { version: 0, latency: null, editedAt: null, sequence: 0, last: null };
window.refereeLab = state;

/** The pack as the form gives it: formulas left as the text's are left out (the default). */
function pack() {
  const out = {};
  for (const name of FIELDS) {
    const value = $(`f-${name}`).value.trim();
    if (name === "initiative" && !value) continue;
    if (TEXT[name] !== undefined && value === TEXT[name]) continue;
    if (name === "defeat_threshold") out[name] = /^\d+$/.test(value) ? Number(value) : value;
    else if (name === "critical_extra_damage") out[name] = /^\d+$/.test(value) ? Number(value) : value;
    else out[name] = value;
  }
  if (out.critical_effect === "stun-free-attack") delete out.critical_effect;
  if (out.tie_break === "reroll") delete out.tie_break;
  if (out.critical_extra_damage === 1) delete out.critical_extra_damage;
  if (out.defeat_threshold === 15) delete out.defeat_threshold;
  return out;
}

function showErrors(errors) {
  for (const name of FIELDS) {
    const box = $(`e-${name}`);
    if (!box) continue;
    const message = errors[name] || "";
    box.textContent = message;
    box.closest(".field").classList.toggle("bad", Boolean(message));
  }
}

function svgFrom(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  return document.importNode(doc.documentElement, true);
}

function number(value, stat) {
  if (value === null || value === undefined) return "-";
  return stat === "hit" && value > 2 ? value.toFixed(1) : value.toFixed(3);
}

function compareTables(rows) {
  return rows.map((row) => {
    const title = row.table === "ratio" ? RATIOS[row.stat] : TITLES[row.stat];
    const line = (label, cells) => el("tr", {}, el("th", { scope: "row", text: label }), cells.map((c) => el("td", { text: c })));
    const body = [
      line("printed in the text", row.printed),
      line("the text's pack", row.against.map((v) => number(v, row.stat))),
      line("this pack", row.pack.map((v) => number(v, row.stat))),
    ];
    if (row.pack_with_free_attacks.some((v) => v !== null)) {
      body.push(line("this pack, with free attacks", row.pack_with_free_attacks.map((v) => number(v, row.stat))));
    }
    // A wide table scrolls inside its own box on a narrow screen (the page never does).
    return el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": title },
      el("table", { class: "lab-table", "data-stat": `${row.table}-${row.stat}` },
        el("caption", { text: title }),
        el("thead", {}, el("tr", {}, el("td", {}), row.columns.map((c) => el("th", { scope: "col", text: c })))),
        el("tbody", {}, body)));
  });
}

/** Mark the figures stale (a formula has an error: they are the last good pack's) or not. */
function stale(yes) {
  document.body.classList.toggle("stale", yes);
  for (const note of document.querySelectorAll(".stale-note")) note.hidden = !yes;
  for (const figure of document.querySelectorAll(".figure")) {
    if (yes) figure.dataset.stale = "stale";
    else delete figure.dataset.stale;
  }
}

function draw(answer) {
  state.last = answer;
  const change = $("show-change").checked;
  fill($("heat-map"), svgFrom(change ? answer.change_svg : answer.matrix_svg));
  // The text's own pack changes nothing: say so rather than show a blank white square.
  const moved = answer.change.some((row) => row.some((v) => v !== null && v !== 0));
  $("heat-note").textContent = change
    ? moved
      ? "Blue: the row's fighter wins more often than under the text's pack; red: less often. Hover a cell for its value."
      : "No change yet: this is the text's own pack, so every cell is 0. Edit a formula, or untick the box to see who beats whom."
    : "Each cell: the chance that the fighter of the row beats the fighter of the column (blue: likely, red: unlikely). Hover a cell for its value.";
  fill($("ladder"), answer.ladder.steps.map((s) => el("tr", {},
    el("td", { text: `CS ${s.high} vs CS ${s.low}` }),
    // null where the duel never ends (say, every initiative roll ties): shown as "-"
    el("td", { text: s.p_higher_wins === null ? "-" : s.p_higher_wins.toFixed(3) }),
    el("td", { text: s.edge_per_point === null ? "-" : `${(100 * s.edge_per_point).toFixed(2)}%` }))));
  fill($("compare"), compareTables(answer.compare));
}

async function refresh() {
  const mine = ++state.sequence;
  const started = state.editedAt ?? performance.now();
  let answer;
  try {
    answer = await call("POST", "/api/lab/analyse", { body: { pack: pack() } });
  } catch (err) {
    if (mine === state.sequence) say(err.message, "error");
    return;
  }
  if (mine !== state.sequence) return; // a newer edit is on its way
  say("");
  showErrors(answer.ok ? {} : answer.errors);
  if (answer.ok) draw(answer);
  stale(!answer.ok && state.last !== null);
  state.latency = performance.now() - started;
  state.editedAt = null;
  state.version += 1;
  $("heat-map").dataset.version = String(state.version);
}

let timer = null;
function edited() {
  if (state.editedAt === null) state.editedAt = performance.now();
  clearTimeout(timer);
  timer = setTimeout(refresh, 25);
}

// "input" alone: every box and list fires it as it changes ("change" would come again on
// leaving a box, and redraw the same pack twice).
$("lab-form").addEventListener("input", edited);
$("lab-form").addEventListener("submit", (event) => event.preventDefault());
$("show-change").addEventListener("change", () => state.last && draw(state.last));
refresh();

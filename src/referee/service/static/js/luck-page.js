// The luck page: exports dropped on it (or closed bouts by id) go to POST /api/luck, which
// verifies each and answers the report, its refusals and its plots (self-contained SVG drawn
// by the service). window.refereeLuck is for tests: `version` counts answers drawn.

import { call, el, fill, say } from "./api.js";
import "./skip.js"; // the skip link moves the focus, not the address (its fragment)

const $ = (id) => document.getElementById(id);
const state = { version: 0, last: null };
window.refereeLuck = state;

function svgFrom(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  return document.importNode(doc.documentElement, true);
}

async function exportsGiven() {
  const out = [];
  for (const file of $("files").files) {
    let doc;
    try {
      doc = JSON.parse(await file.text());
    } catch (err) {
      throw new Error(`${file.name} is not JSON: ${err.message}`);
    }
    out.push(doc);
  }
  return out;
}

function draw(answer) {
  state.last = answer;
  $("verdict").textContent = answer.lines[1] || "";
  fill($("lines"), answer.lines.map((line) => el("li", { text: line })));
  fill($("refused"), answer.refused.map((r) => el("li", { class: "bad", text: `${r.source}: refused: ${r.reason}` })));
  const figures = ["halves", "damage", "faces"].filter((k) => answer.plots[k]).map((k) =>
    el("figure", { "data-plot": k }, svgFrom(answer.plots[k])));
  fill($("plots"), figures);
}

async function read(event) {
  event.preventDefault();
  let exports;
  try {
    exports = await exportsGiven();
  } catch (err) {
    say(err.message, "error");
    return;
  }
  const bouts = $("bouts").value.split(/[\s,]+/).filter(Boolean);
  const fighter = $("fighter").value.trim() || null;
  const character = $("character").value.trim() || null;
  const body = { exports, bouts, fighter };
  if (character) body.character = character;
  say("Verifying...");
  try {
    draw(await call("POST", "/api/luck", { body }));
    say("");
  } catch (err) {
    fill($("lines"));
    fill($("plots"));
    $("verdict").textContent = "";
    say(err.message, "error");
  }
  state.version += 1;
  $("plots").dataset.version = String(state.version);
}

$("luck-form").addEventListener("submit", read);

// A character's page links here with its id (`#character=ID`, characters.html): its record
// and luck are read at once, over its bouts of this server.
const asked = new URLSearchParams(location.hash.slice(1)).get("character");
if (asked) {
  $("character").value = asked;
  $("luck-form").requestSubmit();
}

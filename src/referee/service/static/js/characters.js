// Your characters (characters.html): made, listed, changed and joined to a bout with the
// character key this browser keeps (localStorage). The first character makes the key; the key
// moves to another door as a link (characters.html#key=...) or its QR code. The key goes only
// into the Authorization (or X-Character-Key) header of requests to the referee service, and
// into this page's fragment when it is moved, never into a request's address.

import { ServiceError, call, el, fragment, once, say } from "./api.js";
import { qrToggle } from "./qr.js";
import { copyButton } from "./ui.js";
import "./skip.js"; // the skip link moves the focus, not the address (its fragment)

const $ = (id) => document.getElementById(id);
const STORED = "referee-character-key";
const KEY_SHAPE = /^ck_[A-Za-z0-9_-]{32}$/;
/** A bout's id, as the service makes them (what a join link's `#bout=` holds). */
const BOUT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const state = { characters: [], reading: 0 };

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The key this browser keeps, or null. */
function keyHeld() {
  const kept = storage()?.getItem(STORED) || null;
  return kept && KEY_SHAPE.test(kept) ? kept : null;
}

function keep(key) {
  storage()?.setItem(STORED, key);
}

function keyLink(key) {
  return `${location.origin}/static/characters.html#key=${key}`;
}

/** A key moved here by its link: kept, and taken out of the address bar and history. */
function adopt() {
  const given = fragment().key;
  if (!given) return;
  history.replaceState(null, "", location.pathname);
  if (!KEY_SHAPE.test(given)) {
    say("That link holds no character key (ck_ and 32 letters, digits, - or _).", "error");
    return;
  }
  keep(given);
  say("This browser now holds the key: its characters are listed here.");
}

function words(character) {
  const sheet = character.sheet;
  if (character.system === "msv") return `CS ${sheet.cs}`;
  return Object.entries(sheet)
    .filter(([, v]) => typeof v !== "object")
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}

async function load() {
  const key = keyHeld();
  const list = $("characters");
  const mine = ++state.reading; // only the latest reading draws the list (never two, one after the other)
  if (!key) {
    list.replaceChildren();
    $("status").textContent = "No key yet: your first character makes one, kept by this browser.";
    state.characters = [];
    fillJoin();
    return;
  }
  let answer;
  try {
    answer = await call("GET", "/api/characters", { token: key });
  } catch (err) {
    if (mine !== state.reading) return;
    $("status").textContent = "";
    say(err instanceof ServiceError ? err.message : String(err), "error");
    return;
  }
  if (mine !== state.reading) return;
  state.characters = answer.characters;
  list.replaceChildren();
  $("status").textContent = `Your key holds ${state.characters.length} character(s).`;
  for (const c of state.characters) {
    const change = el("button", { type: "button", class: "small", onclick: () => edit(c) }, "change");
    list.append(
      el(
        "li",
        { dataset: { character: c.id } },
        el("strong", {}, c.name),
        ` (${c.system.toUpperCase()}, version ${c.version}): ${words(c)}`,
        c.gear.length ? `; gear: ${c.gear.join(", ")}` : "",
        " ",
        change,
        " ",
        el("a", { href: `/static/luck.html#character=${encodeURIComponent(c.id)}`, class: "luck-link" }, "record and luck"),
      ),
    );
  }
  fillJoin();
}

function fillJoin() {
  const select = $("join-character");
  select.replaceChildren(...state.characters.map((c) => el("option", { value: c.id }, `${c.name} (${c.system.toUpperCase()})`)));
}

async function edit(listed) {
  let whole;
  try {
    whole = await call("GET", `/api/characters/${encodeURIComponent(listed.id)}`, { token: keyHeld() });
  } catch (err) {
    say(`${listed.name} could not be read to change it: ${err.message}`, "error");
    return;
  }
  $("form-h").textContent = `Change ${whole.name} (its next version)`;
  $("char-id").value = whole.id;
  $("char-name").value = whole.name;
  $("char-system").value = whole.system;
  $("char-system").disabled = true;
  $("char-cs").value = whole.sheet.cs ?? "";
  $("char-sheet").value = JSON.stringify(whole.sheet);
  $("char-gear").value = whole.gear.join(", ");
  $("char-hidden").value = whole.hidden.join(", ");
  $("char-new").hidden = false;
  showSystem();
  $("char-name").focus(); // the form now holds the character: the next thing is to change it
}

function blank() {
  $("char-form").reset();
  $("char-id").value = "";
  $("char-system").disabled = false;
  $("form-h").textContent = "A new character";
  $("char-new").hidden = true;
  showSystem();
}

function showSystem() {
  const msv = $("char-system").value === "msv";
  $("char-cs-field").hidden = !msv;
  $("char-sheet-field").hidden = msv;
}

function list(text) {
  return text.split(",").map((w) => w.trim()).filter(Boolean);
}

async function save(event) {
  event.preventDefault();
  // One press, one character: a second Enter while the first is saved would make a second
  // character (and, for the first one, a second key that this browser would keep instead).
  await once($("char-form"), saveForm);
}

async function saveForm() {
  let sheet;
  if ($("char-system").value === "msv") {
    const cs = $("char-cs").value.trim();
    if (!/^\d+$/.test(cs)) {
      say("Combat Skill: give a whole number from 0 to 100.", "error");
      $("char-cs").focus();
      return;
    }
    sheet = { cs: Number(cs) };
  } else {
    try {
      sheet = JSON.parse($("char-sheet").value);
    } catch {
      say("The SRP sheet is not JSON.", "error");
      return;
    }
  }
  const body = { name: $("char-name").value.trim(), sheet, gear: list($("char-gear").value), hidden: list($("char-hidden").value) };
  try {
    const id = $("char-id").value;
    if (id) {
      const changed = await call("PATCH", `/api/characters/${encodeURIComponent(id)}`, { token: keyHeld(), body });
      say(`Saved ${changed.name}, version ${changed.version}.`);
    } else {
      const made = await call("POST", "/api/characters", { token: keyHeld(), body: { ...body, system: $("char-system").value } });
      if (made.key) keep(made.key);
      say(`Saved ${made.character.name}, version 1.` + (made.key ? " This browser keeps your new key." : ""));
    }
    blank();
    await load();
  } catch (err) {
    say(err instanceof ServiceError ? err.message : String(err), "error");
  }
}

/** The bout id of a join link (join.html#bout=ID), or the text itself. */
function boutOf(text) {
  const found = /[#&]bout=([A-Za-z0-9_-]+)/.exec(text);
  return found ? found[1] : text.trim();
}

async function join(event) {
  event.preventDefault();
  await once($("join-form"), joinBout);
}

async function joinBout() {
  const bout = boutOf($("join-link").value);
  if (!BOUT_ID.test(bout)) {
    say("That is not a bout's join link (…/join.html#bout=ID) nor a bout's id.", "error");
    $("join-link").focus();
    return;
  }
  const character = $("join-character").value;
  if (!character) {
    say("Save a character first.", "error");
    return;
  }
  try {
    const joined = await call("POST", `/api/bouts/${encodeURIComponent(bout)}/characters`, {
      headers: { "X-Character-Key": keyHeld() },
      body: { character },
    });
    location.href = `/static/fighter.html#bout=${encodeURIComponent(bout)}&token=${encodeURIComponent(joined.token)}`;
  } catch (err) {
    say(err instanceof ServiceError ? err.message : String(err), "error");
  }
}

function showKey() {
  const key = keyHeld();
  if (!key) {
    say("No key yet: save a character first.", "error");
    return;
  }
  $("key-link").textContent = keyLink(key);
  $("key-tools").replaceChildren(copyButton(() => keyLink(key), "the key's link"), qrToggle(() => keyLink(key), "QR code of your character key's link"));
  $("key-box").hidden = false;
}

adopt();
$("char-system").addEventListener("change", showSystem);
$("char-form").addEventListener("submit", save);
$("char-new").addEventListener("click", blank);
$("join-form").addEventListener("submit", join);
$("key-show").addEventListener("click", showKey);
load();

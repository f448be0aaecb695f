// The bout pages: referee.html, fighter.html and board.html share this module; <body
// data-role="referee|fighter|board"> says which parts are live. Every page follows the
// bout's event stream and re-reads the state (with its token) after each event.

import { attempt, Bout, el, fill, fragment, once, say, withSeedPart } from "./api.js";
import { focusLost, noteFocus, putFocusBack } from "./focus.js";
import { DiceLog } from "./log.js";
import { systemSpec } from "./systems.js";
import { hasPositions, renderMap } from "./map.js";
import { forget, remember } from "./mybouts.js";
import { qrToggle } from "./qr.js";
import { answerTone, boutWords, confirmAction, copyButton, fieldSet, gate, nameOptions, renderFighters, renderOrder, sideWords, stateWords, statusText, winnerWords } from "./ui.js";
import { EventType } from "./vocabulary.js";
import { cancelQuestion, closeQuestion, endQuestion, handoverQuestion } from "./questions.js";
import "./skip.js"; // the skip link moves the focus, not the address (its fragment)

const role = document.body.dataset.role;
const $ = (id) => document.getElementById(id);
const params = fragment();
const state = { view: null, events: [], spec: null, actForm: null, addForm: null, yourTurn: false, focusKept: false };
let generation = 0; // which state request is the latest

if (!params.bout) {
  say("This page needs a bout in its address: #bout=ID" + (role === "board" ? "" : "&token=TOKEN"), "error");
} else {
  start();
}

async function start() {
  const bout = new Bout(params.bout, role === "board" ? null : params.token || null);
  state.bout = bout;
  for (const link of document.querySelectorAll("[data-link]")) {
    link.href = `${link.dataset.link}#bout=${encodeURIComponent(params.bout)}`;
  }
  // The rule system decides what the log offers: overrides (SRP-20) are SRP's.
  const first = await attempt(() => bout.get());
  const overrides = role === "referee" && !!first && !!systemSpec(first.system).overrides;
  const log = new DiceLog($("log"), { onOverride: overrides ? prefillOverride : null });
  state.log = log;
  let timer = null;
  bout.follow(
    (event) => {
      state.events.push(event);
      log.add(event);
      clearTimeout(timer);
      timer = setTimeout(refresh, 30);
    },
    (link) => {
      const badge = $("live");
      badge.textContent = link;
      badge.className = `live link-${link}`;
    },
  );
  if (role === "referee") wireReferee();
  if (role === "fighter") wireSound();
  wireActions();
  refresh();
}

/** Read the bout again and draw it; resolves once drawn (or once a later reading took over). */
function refresh() {
  drawing = draw();
  return drawing;
}
let drawing = Promise.resolve();

/** Read the bout again and wait until the page shows it (the latest reading, drawn). */
async function redrawn() {
  await refresh();
  for (let last = null; last !== drawing; ) {
    last = drawing;
    await last;
  }
}

async function draw() {
  generation += 1;
  const mine = generation;
  // A reading sent with a token spent meanwhile (handed over) is read again without it.
  const asked = state.bout.token;
  const spent = (err) => (asked !== state.bout.token ? null : Promise.reject(err));
  const view = await attempt(() => state.bout.get().catch(spent));
  if (view === null && mine === generation) return draw();
  if (!view || mine !== generation) return; // a later refresh is on its way: keep its answer
  const focused = focusBefore();
  // Anywhere else on the page, a control drawn again (or disabled or hidden under the focus,
  // as Pause is once the bout is paused) hands the focus to the same one drawn again, or to
  // the one beside it (focus.js).
  const elsewhere = focused ? null : noteFocus($("main"));
  state.view = view;
  keepInMyBouts(view);
  if (!state.spec) {
    state.spec = systemSpec(view.system);
    document.body.dataset.system = view.system;
    if ($("override-panel")) $("override-panel").hidden = !state.spec.overrides;
    buildForms();
  }
  const yourTurn = role === "fighter" && view.status === "running" && !!view.you && view.turn === view.you;
  document.title = yourTurn ? `Your turn · ${view.name} · ${role}` : `${view.name} · ${role}`;
  $("title").textContent = yourTurn ? `Your turn · ${view.name}` : view.name;
  if (yourTurn && !state.yourTurn) announceTurn();
  state.yourTurn = yourTurn;
  document.body.classList.toggle("bout-closed", !!view.closed);
  staleActionMessage();
  $("status").textContent = statusText(view);
  renderOrder($("order"), view);
  renderFighters($("fighters"), view, role === "referee" ? fighterControls : () => null);
  if ($("map-panel")) {
    $("map-panel").hidden = !hasPositions(view);
    if (hasPositions(view) && document.body.dataset.mapBusy !== "dragging") {
      document.body.dataset.mapBusy = "";
      renderMap($("map"), view, mapOptions(view, yourTurn));
    }
  }
  fill(
    $("fairness"),
    "commitment ",
    el("code", { id: "commitment-code" }, view.commitment),
    " ",
    copyButton(() => view.commitment, "Copy the commitment"),
    " · client seed ",
    el("code", {}, view.client_seed),
    ...newestHash(),
  );
  if (role === "referee") updateRefereeSelects(view);
  if (role === "board") await refreshBoard();
  else updateActForm(view);
  focusAfter(focused);
  putFocusBack(elsewhere);
}

/** An action's message (`about: "action"`) is taken down once an event after it has ended the
 * bout (ended, cancelled, closed): the page says the bout's end instead. The action that
 * ended it keeps its message (its own answer holds the `ended` event). */
function staleActionMessage() {
  const message = $("message");
  if (!message || !message.textContent || message.dataset.about !== "action") return;
  const over = [EventType.ENDED, EventType.CANCELLED, EventType.CLOSED];
  const end = state.events.find((e) => over.includes(e.type));
  if (end && end.seq > Number(message.dataset.seq || -1)) say("");
}

/** The message of an action's answer: red if it failed after its dice, neutral if it did
 * not work, green if it did (`answerTone`); it remembers the answer's last event. */
function actionMessage(answer) {
  const seqs = (answer.events || []).map((e) => e.seq);
  if ($("message")) $("message").dataset.seq = String(seqs.length ? Math.max(...seqs) : -1);
  return { text: answer.failed || answer.summary || "Done.", kind: answerTone(answer), about: "action" };
}

// ---- the keyboard's focus, kept through the bout ------------------------------------------
// A refresh redraws the map and gates the action button: a focused button that is disabled,
// or a map token that is drawn again, loses the focus to the page, and the next action would
// be a long walk of Tab presses away. The focus goes back where it was: the same map token,
// else the action button when it can act, else the action form itself (its button's turn
// comes back to it).

/** Where the focus is before a refresh: in the action form, on a map token, or nowhere of ours. */
function focusBefore() {
  const active = document.activeElement;
  const form = $("act-form");
  if (form && active && form.contains(active)) return { parked: active === form };
  // Roll initiative is hidden once rolled: the next thing to press is the action form's.
  if (form && active && active.id === "do-initiative") return { parked: true };
  const token = active && active.closest ? active.closest("#map .token") : null;
  if (token) return { token: token.dataset.name };
  // Lost to the page since our last refresh put it back (a control disabled under it):
  // it is still ours to put back. Anywhere else the user put it, it stays.
  if (state.focusKept && (!active || active === document.body)) return { parked: true };
  state.focusKept = false;
  return null;
}

function focusAfter(was) {
  if (!was) return;
  const active = document.activeElement;
  const lost = focusLost();
  if (!lost && !(was.parked && active === $("act-form"))) return; // still where the user put it
  state.focusKept = true;
  if (was.token) {
    const body = [...document.querySelectorAll("#map .token")].find((t) => t.dataset.name === was.token);
    const focusable = body && body.querySelector(".body[tabindex]");
    if (focusable) return focusable.focus();
  }
  const submit = $("act-submit");
  if (submit && !submit.disabled) submit.focus();
  else if ($("act-form")) $("act-form").focus({ preventScroll: true });
}

/** The newest event this page was shown, as `referee verify --expect-hash` takes it
 * (SEQ:HASH): what a player keeps to hold any export of the bout to (the browser keeps it
 * too, witness.js). */
function newestHash() {
  const last = [...state.events].reverse().find((e) => typeof e.hash === "string");
  if (!last) return [];
  const kept = `${last.seq}:${last.hash}`;
  return [
    " · newest event hash ",
    el("code", { id: "kept-hash" }, kept),
    " ",
    copyButton(() => kept, "Copy the newest event hash (SEQ:HASH, for referee verify --expect-hash)"),
  ];
}

/** This page in the browser's "My bouts" (home page): its role, token and last state. */
function keepInMyBouts(view) {
  if (role === "board" || !params.token || state.handedOver) return;
  if (role === "fighter" && !view.you) return;
  if (role === "referee" && view.you) return; // a fighter's token on the referee page
  const entry = { id: params.bout, role, fighter: role === "fighter" ? view.you : null };
  const words = stateWords(view, entry.fighter);
  if (words === keptWords) return;
  keptWords = words;
  remember({ ...entry, token: params.token, name: view.name, system: view.system, state: words });
}
let keptWords = null;

/** Who may be moved on the map now, and how a drag is sent (as the action form sends it). */
function mapOptions(view, yourTurn) {
  if (view.closed || view.status !== "running" || role === "board") return {};
  const mover = role === "fighter" ? (yourTurn ? view.you : null) : view.turn;
  if (!mover) return {};
  // A move its conditions forbid (grappled, entangled: only a step) is not offered for a drag.
  const select = $("map-mode");
  const fighter = view.fighters.find((f) => f.name === mover);
  if (select && state.spec.refusal) {
    for (const option of select.options) {
      const why = state.spec.refusal(fighter, option.value, null);
      option.disabled = Boolean(why);
      option.title = why || "";
    }
    if (select.selectedOptions[0] && select.selectedOptions[0].disabled) {
      const open = [...select.options].find((o) => !o.disabled);
      if (open) select.value = open.value;
    }
  }
  const send = (kind, options) =>
    attempt(
      () => state.bout.post("/actions", { actor: mover, kind, options }),
      actionMessage,
    );
  return { mover, send, mode: () => ($("map-mode") ? $("map-mode").value : "move") };
}

// ---- the scoreboard ----------------------------------------------------------------------

async function refreshBoard() {
  const rows = await attempt(() => state.bout.get("/scoreboard"));
  if (!rows) return;
  fill(
    $("scoreboard"),
    rows.map((r) =>
      el(
        "tr",
        { class: r.defeated ? "defeated" : null },
        el("th", { scope: "row" }, r.name),
        el("td", {}, r.side),
        el("td", {}, `${r.wounds} / ${r.threshold}`),
        el("td", {}, r.defeated ? "defeated" : "standing"),
      ),
    ),
  );
}

// ---- actions (referee and fighter) --------------------------------------------------------

function buildForms() {
  const form = $("act-form");
  if (form) {
    const kinds = Object.keys(state.spec.actions);
    nameOptions($("act-kind"), kinds);
    $("act-kind").addEventListener("change", () => {
      actionOptions();
      if (state.view) updateActForm(state.view);
    });
    actionOptions();
  }
  if ($("add-form")) {
    const fields = fieldSet(state.spec.fighter, "add");
    state.addForm = fields;
    fill($("add-fields"), fields.nodes);
    if (state.spec.hideable) $("add-hidden").placeholder = state.spec.hideable.join(", ");
    // The page's forms wait for the bout and its rule system: their buttons are disabled
    // until then (the act button stays gated by the turn, `updateActForm`).
    $("add-submit").disabled = false;
    $("update-submit").disabled = false;
  }
}

function action() {
  return state.spec.actions[$("act-kind").value] || { target: true, fields: [] };
}

function actionOptions() {
  const kind = $("act-kind").value;
  // A fighter's page offers only what is the fighter's to choose (the referee's terms are not).
  const fields = fieldSet(action().fields.filter((f) => role === "referee" || !f.referee), "act");
  state.actForm = fields;
  fill($("act-options"), fields.nodes);
  $("act-target-field").hidden = !action().target;
  $("act-submit").textContent = kind === "attack" ? "Attack" : `Do ${kind.replace("_", " ")}`;
}

function me() {
  return role === "fighter" ? state.view.you : $("act-actor").value || state.view.turn;
}

function updateActForm(view) {
  if (!$("act-form")) return;
  const living = view.fighters.filter((f) => !f.defeated);
  if (role === "referee") nameOptions($("act-actor"), living.map((f) => f.name));
  if (role === "referee" && view.turn) $("act-actor").value = view.turn;
  if (role === "fighter") $("you").textContent = view.you ? `You are ${view.you}.` : "";
  const actor = view.fighters.find((f) => f.name === me());
  const enemies = living.filter((f) => !actor || f.side !== actor.side).map((f) => f.name);
  nameOptions($("act-target"), enemies);
  const stunned = living.find((f) => enemies.includes(f.name) && f.conditions && "stunned" in f.conditions);
  if (view.free_attack && stunned) $("act-target").value = stunned.name;
  const target = view.fighters.find((f) => f.name === $("act-target").value);
  $("target-info").textContent = target ? state.spec.targetInfo(target) : "";
  const yourTurn = view.status === "running" && view.turn === me();
  const why = actReason(view, actor, enemies);
  gate($("act-submit"), why);
  // Said beside the button too (a tooltip never shows on a phone); not while waiting a turn.
  $("act-why").textContent = yourTurn && why ? why : "";
  if (yourTurn && !why && actor) askTheRules(view);
  const rollButton = $("roll-form") && $("roll-form").querySelector("button");
  gate(rollButton, ["ended", "cancelled"].includes(view.status) ? `${boutWords(view)} No more rolls.` : null);
  const who = role === "fighter" ? "Your" : `${me()}'s`;
  $("turn-hint").textContent =
    view.status === "open"
      ? "Waiting for initiative."
      : view.status !== "running" || view.closed
        ? boutWords(view)
        : yourTurn
          ? view.free_attack
            ? `${who} turn: a free attack (MSV-4 critical) - strike again!`
            : `${who} turn.`
          : `${view.turn}'s turn.`;
  $("act-form").classList.toggle("your-turn", yourTurn);
}

/** What the page cannot know, the rules answer: whether the action chosen may be taken now
 * (`GET .../why-not`, the rules' own `why_not`, up to the first die); a refusal disables the
 * button with the rules' words. The answer counts only if the form still asks the same. */
async function askTheRules(view) {
  // Only an action against a target: the rules then judge the target (its defense, its
  // reach); a move's path and the like are the form's to fill in before it is sent.
  if (!action().target || !$("act-target").value) return;
  let options;
  try {
    options = JSON.stringify(state.actForm.read());
  } catch {
    return; // the form says what is wrong with its own fields
  }
  const asked = { actor: me(), kind: $("act-kind").value, target: $("act-target").value, options };
  const key = JSON.stringify([view.events, asked]);
  state.asking = key;
  const query = new URLSearchParams(asked).toString();
  let answer;
  try {
    answer = await state.bout.get(`/why-not?${query}`);
  } catch {
    return; // the action itself will say why, if it is refused
  }
  let now;
  try {
    now = { actor: me(), kind: $("act-kind").value, target: $("act-target").value, options: JSON.stringify(state.actForm.read()) };
  } catch {
    return;
  }
  if (state.asking !== key || JSON.stringify([state.view.events, now]) !== key || !answer.why_not) return;
  gate($("act-submit"), answer.why_not);
  $("act-why").textContent = answer.why_not;
}

/** Why the action button cannot act now (null when it can). */
function actReason(view, actor, enemies) {
  if (view.closed) return "The bout is closed.";
  if (view.status === "open") return "Waiting for initiative: the referee rolls it first.";
  if (view.status !== "running") return boutWords(view);
  if (role === "fighter" && !view.you) return "This link does not speak for a fighter.";
  if (actor && actor.defeated) return role === "fighter" ? "You are defeated." : `${actor.name} is defeated.`;
  if (view.turn !== me()) return role === "fighter" ? `It is ${view.turn}'s turn, not yours.` : `It is ${view.turn}'s turn, not ${me()}'s.`;
  if (action().target && !enemies.length) return "No one to act against.";
  // The rule system's own limits as the page sees them (SRP: reach, conditions).
  const target = action().target ? view.fighters.find((f) => f.name === $("act-target").value) : null;
  return state.spec.refusal ? state.spec.refusal(actor, $("act-kind").value, target || null) : null;
}

// ---- your turn: the heading, the title and (if the fighter turned it on) a short sound -----

function wireSound() {
  const box = $("sound-on");
  if (!box) return;
  box.checked = localStorage.getItem("referee-turn-sound") === "on";
  box.addEventListener("change", () => {
    localStorage.setItem("referee-turn-sound", box.checked ? "on" : "off");
    if (box.checked) beep(); // a click lets the browser start audio; it also previews the sound
  });
}

function announceTurn() {
  const box = $("sound-on");
  if (box && box.checked) beep();
}

/** Two short notes made with WebAudio (no sound file is loaded). */
function beep() {
  document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
  try {
    const Audio = window.AudioContext || window.webkitAudioContext;
    const ctx = state.audio || (state.audio = new Audio());
    const now = ctx.currentTime;
    for (const [i, freq] of [660, 880].entries()) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.14);
      gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.14 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.14 + 0.13);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + i * 0.14);
      osc.stop(now + i * 0.14 + 0.14);
    }
  } catch {
    // no audio here: the heading and the title still say it
  }
}

function wireActions() {
  const form = $("act-form");
  if (form) {
    $("act-target").addEventListener("change", () => state.view && updateActForm(state.view));
    // A weapon or any option chosen may change what the rules allow (`askTheRules`).
    $("act-options").addEventListener("change", () => state.view && updateActForm(state.view));
    if ($("act-actor")) $("act-actor").addEventListener("change", () => state.view && updateActForm(state.view));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      // One press, one action: a second Enter or click while it is answered (and until the
      // page shows the bout after it, whose turn it is now) sends nothing.
      once(form, async () => {
        const answer = await attempt(async () => {
          const kind = $("act-kind").value;
          const options = state.actForm.read();
          const target = $("act-target").value;
          if (kind === "attack") {
            return state.bout.post("/attacks", { attacker: me(), target, ...options });
          }
          const named = action().target ? { target, ...options } : options;
          return state.bout.post("/actions", { actor: me(), kind, options: named });
        }, actionMessage);
        if (answer) await redrawn();
      });
    });
  }
  const roll = $("roll-form");
  if (roll) {
    roll.addEventListener("submit", (ev) => {
      ev.preventDefault();
      once(roll, () =>
        attempt(
          () => state.bout.post("/rolls", { dice: $("roll-dice").value.trim() }),
          (r) => `${r.actor} rolled ${r.expression} = ${r.total}: ${r.faces.join(" ")} (nonce ${r.rolls.map((x) => x.nonce).join(", ")})`,
        ),
      );
    });
  }
}

// ---- the referee's powers -----------------------------------------------------------------

function power(path, done, body) {
  return attempt(() => state.bout.post(`/${path}`, body), done);
}

/** A referee's control that sends: one press at a time (a double click skips one turn, not
 * two), held until the page shows the bout after it (its controls gated anew). */
function pressed(control, work) {
  return once(control, async () => {
    const answer = await work();
    if (answer) await redrawn();
    return answer;
  });
}

function wireReferee() {
  const buttons = {
    initiative: ["initiative", (r) => `Initiative: ${r.order.join(", ")}`],
    "close-joining": ["close-joining", "Joining closed: nobody may join from the link now; you may still add fighters."],
    pause: ["pause", "Paused."],
    resume: ["resume", "Resumed."],
    skip: ["skip", "Turn skipped."],
    void: ["void", "Last action voided (kept in the log, struck through)."],
    "rotate-seed": ["rotate-seed", "Server seed revealed and replaced by a new committed one."],
  };
  for (const [id, [path, done]] of Object.entries(buttons)) {
    const button = $(`do-${id}`);
    button.addEventListener("click", () => pressed(button, () => power(path, done)));
  }
  // Ending actions cannot be undone: each asks first, saying what it ends and what it reveals.
  $("do-cancel").addEventListener("click", () =>
    pressed($("do-cancel"), async () => {
      if (await confirmAction(cancelQuestion(state.view))) return power("cancel", "Bout cancelled: nothing more can be done in it. Close it to reveal the seed.");
    }),
  );
  $("do-close").addEventListener("click", () =>
    pressed($("do-close"), async () => {
      if (await confirmAction(closeQuestion(state.view))) return power("close", "Bout closed: the server seed is revealed, anyone can verify it now.");
    }),
  );
  $("do-handover").addEventListener("click", () =>
    once($("do-handover"), async () => {
      if (!(await confirmAction(handoverQuestion()))) return;
      const r = await power("handover", "A new referee token: give the link below to the new referee. This page's own link no longer works.");
      if (r) {
        // Its token is spent (a reading with it would be refused, and shown as an error): the
        // page follows the bout on as anyone may, without it (hidden stats hidden again).
        state.handedOver = true;
        state.bout.token = null;
        forget({ id: params.bout, role: "referee", fighter: null }); // this page's token is spent
        const url = `${location.origin}/static/referee.html#bout=${encodeURIComponent(params.bout)}&token=${encodeURIComponent(r.referee_token)}`;
        const page = el("a", { href: url }, "New referee page");
        fill($("handover-link"), page, " ", copyButton(() => url, "Copy the new referee link"), " ", el("code", {}, url), qrToggle(() => url, "QR code of the new referee link"));
        page.focus(); // the result: this page's own link no longer works
      }
    }),
  );
  $("end-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    pressed($("end-form"), async () => {
      const winner = $("end-winner").value || null;
      const reason = $("end-reason").value.trim() || null;
      if (!(await confirmAction(endQuestion(state.view, winner, reason)))) return;
      return power("end", (r) => `The bout is over: ${winnerWords({ ...state.view, winner })}.`, { winner, reason });
    });
  });
  $("override-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const wounds = {};
    for (const input of $("override-wounds").querySelectorAll("input")) {
      if (input.value.trim() !== "") wounds[input.dataset.name] = Number(input.value);
    }
    const of = Number($("override-of").value);
    pressed($("override-form"), () => power("override", `Outcome #${of} overridden; the original stays in the log.`, { of, wounds, note: $("override-note").value }));
  });
  $("add-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    once($("add-form"), () => attempt(async () => {
      const body = { name: $("add-name").value.trim(), ...state.spec.body(state.addForm.read()) };
      const side = $("add-side").value.trim();
      if (side) body.side = side;
      const hidden = $("add-hidden").value.split(",").map((s) => s.trim()).filter(Boolean);
      if (hidden.length) body.hidden = hidden;
      // the new fighter's part of the client seed, drawn here (until the first roll fixes it)
      const r = await withSeedPart((sent) => state.bout.post("/fighters", sent), body);
      addInvite(r.name, r.token);
      return r;
    }, (r) => `${r.name} added: send the invite link below.`));
  });
  $("update-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    once($("update-form"), () => attempt(() => {
      const body = {};
      const wounds = $("update-wounds").value.trim();
      if (wounds !== "") body.wounds = Number(wounds);
      const stats = $("update-stats").value.trim();
      if (stats) {
        let parsed;
        try {
          parsed = JSON.parse(stats);
        } catch (err) {
          throw new Error(`Stats to change: not valid JSON (${err.message})`); // nothing is sent
        }
        if (state.view.system === "msv" && "cs" in parsed) body.cs = parsed.cs;
        else body.sheet = parsed;
      }
      return state.bout.patch(`/fighters/${encodeURIComponent($("update-name").value)}`, body);
    }, "Fighter updated."));
  });
  for (const [name, token] of Object.entries(loadInvites())) addInvite(name, token, false);
  const joinUrl = `${location.origin}/static/join.html#bout=${encodeURIComponent(params.bout)}`;
  $("join-url").textContent = joinUrl;
  $("join-url").after(" ", copyButton(() => joinUrl, "Copy the join link"), qrToggle(() => joinUrl, "QR code of the join link"));
}

function fighterControls(f) {
  // one press at a time, on the card's own button (the card is drawn again after it)
  const one = (work) => (ev) => once(ev.currentTarget, work);
  const buttons = [
    el("button", { type: "button", class: "small", title: `A new invite link for ${f.name}; the old one stops working`, onclick: one(() => reissue(f.name)) }, `New link for ${f.name}`),
    // Remove asks nothing: never where the focus is handed after another press (focus.js)
    el("button", { type: "button", class: "small", dataset: { noFocus: "" }, onclick: one(() => attempt(() => state.bout.delete(`/fighters/${encodeURIComponent(f.name)}`), `${f.name} removed.`)) }, `Remove ${f.name}`),
  ];
  if (f.hidden && f.hidden.length) {
    buttons.push(el("button", { type: "button", class: "small", onclick: one(() => attempt(() => state.bout.post(`/fighters/${encodeURIComponent(f.name)}/reveal`, {}), `${f.name}'s hidden stats revealed.`)) }, `Reveal ${f.name}`));
  }
  return el("div", { class: "buttons changes" }, buttons);
}

async function reissue(name) {
  const r = await attempt(
    () => state.bout.post(`/fighters/${encodeURIComponent(name)}/token`),
    (answer) => `A new link for ${answer.name} is below; the old one no longer works.`,
  );
  if (r) addInvite(r.name, r.token);
}

function prefillOverride(outcome) {
  $("override-of").value = outcome.seq;
  const original = [];
  for (const e of state.events) {
    if (e.seq <= outcome.seq) continue;
    if (e.type === EventType.ACTION || (e.type !== EventType.WOUND && e.actor !== "system")) break;
    if (e.type === EventType.WOUND) original.push(e.payload);
  }
  $("override-original").textContent = `Original of #${outcome.seq}: ${outcome.payload.summary || outcome.payload.kind}; wounds ${original.map((w) => `${w.target} ${w.amount}`).join(", ") || "none"}`;
  const inputs = state.view.fighters.map((f) => {
    const id = `override-w-${f.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
    const was = original.find((w) => w.target === f.name);
    return el(
      "div",
      { class: "field" },
      el("label", { for: id }, `Wounds to ${f.name}`),
      el("input", { id, type: "number", min: 0, max: 1000, dataset: { name: f.name }, value: was ? was.amount : null, placeholder: was ? null : "unchanged" }),
    );
  });
  fill($("override-wounds"), inputs);
  $("override-panel").open = true;
  $("override-of").focus();
}

/** Offer only the powers that apply now, each disabled one saying why in its tooltip. */
function updatePowers(view) {
  const status = view.status;
  const live = ["open", "running", "paused"].includes(status);
  const closed = view.closed ? "The bout is closed." : null;
  const reasons = {
    initiative: status === "open" ? null : "Initiative is already settled.",
    "close-joining": status !== "open" ? `Joining closes before initiative (the bout is ${status}).` : view.joining_closed ? "Joining is already closed." : null,
    pause: status === "running" ? null : `Only a running bout can be paused (it is ${status}).`,
    resume: status === "paused" ? null : `Only a paused bout can be resumed (it is ${status}).`,
    skip: status === "running" ? null : `No turn to skip (the bout is ${status}).`,
    void: closed || (status === "cancelled" ? "The bout is cancelled." : view.events > 0 ? null : "Nothing to void."),
    cancel: closed || (live ? null : `The bout has already ${status}.`),
    close: closed,
    "rotate-seed": closed,
    handover: closed,
  };
  for (const [id, reason] of Object.entries(reasons)) gate($(`do-${id}`), reason);
  gate($("end-form").querySelector("button"), live ? null : `The bout has already ${status}.`);
  gate($("override-form").querySelector("button"), closed);
  $("do-initiative").hidden = status !== "open";
  $("join-box").hidden = status !== "open" || view.joining_closed; // joining: only before initiative, until closed
}

function updateRefereeSelects(view) {
  updatePowers(view);
  const names = view.fighters.map((f) => f.name);
  nameOptions($("update-name"), names);
  const sides = [...new Set(view.fighters.map((f) => f.side))];
  nameOptions($("end-winner"), sides, { empty: "(no winner)", label: (side) => sideWords(view, side) });
}

// ---- invite links (kept in this tab's session storage, never in a URL's query) -------------

function inviteKey() {
  return `referee-invites-${params.bout}`;
}

function loadInvites() {
  try {
    return JSON.parse(sessionStorage.getItem(inviteKey()) || "{}");
  } catch {
    return {};
  }
}

function addInvite(name, token, store = true) {
  if (store) {
    const all = loadInvites();
    all[name] = token;
    sessionStorage.setItem(inviteKey(), JSON.stringify(all));
  }
  const url = `${location.origin}/static/fighter.html#bout=${encodeURIComponent(params.bout)}&token=${encodeURIComponent(token)}`;
  for (const old of $("invites").querySelectorAll("li")) if (old.dataset.name === name) old.remove();
  $("invites").append(
    el(
      "li",
      { dataset: { name } },
      el("a", { class: "invite", href: url, target: "_blank", rel: "noopener", dataset: { name } }, `Invite link for ${name}`),
      " ",
      copyButton(() => url, `Copy ${name}'s invite link`),
      " ",
      el("code", {}, url),
      qrToggle(() => url, `QR code of ${name}'s invite link`),
    ),
  );
}

// The bout pages: referee.html, fighter.html and board.html share this module; <body
// data-role="referee|fighter|board"> says which parts are live. Every page follows the
// bout's event stream and re-reads the state (with its token) after each event.

import { Bout, attempt, el, fill, fragment, say } from "./api.js";
import { DiceLog } from "./log.js";
import { systemSpec } from "./systems.js";
import { fieldSet, hasPositions, nameOptions, renderFighters, renderMap, renderOrder, statusText } from "./ui.js";

const role = document.body.dataset.role;
const $ = (id) => document.getElementById(id);
const params = fragment();
const state = { view: null, events: [], spec: null, actForm: null, addForm: null };
let generation = 0; // which state request is the latest

if (!params.bout) {
  say("This page needs a bout in its address: #bout=ID" + (role === "board" ? "" : "&token=TOKEN"), "error");
} else {
  start();
}

function start() {
  const bout = new Bout(params.bout, role === "board" ? null : params.token || null);
  state.bout = bout;
  for (const link of document.querySelectorAll("[data-link]")) {
    link.href = `${link.dataset.link}#bout=${encodeURIComponent(params.bout)}`;
  }
  const log = new DiceLog($("log"), { onOverride: role === "referee" ? prefillOverride : null });
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
  wireActions();
  refresh();
}

async function refresh() {
  generation += 1;
  const mine = generation;
  const view = await attempt(() => state.bout.get());
  if (!view || mine !== generation) return; // a later refresh is on its way: keep its answer
  state.view = view;
  if (!state.spec) {
    state.spec = systemSpec(view.system);
    buildForms();
  }
  document.title = `${view.name} · ${role}`;
  $("title").textContent = view.name;
  $("status").textContent = statusText(view);
  renderOrder($("order"), view);
  renderFighters($("fighters"), view, role === "referee" ? fighterControls : () => null);
  if ($("map-panel")) {
    $("map-panel").hidden = !hasPositions(view);
    if (hasPositions(view)) renderMap($("map"), view);
  }
  $("fairness").textContent = `commitment ${view.commitment} · client seed ${view.client_seed}`;
  if (role === "referee") updateRefereeSelects(view);
  if (role === "board") await refreshBoard();
  else updateActForm(view);
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
    $("act-kind").addEventListener("change", () => actionOptions());
    actionOptions();
  }
  if ($("add-form")) {
    const fields = fieldSet(state.spec.fighter, "add");
    state.addForm = fields;
    fill($("add-fields"), fields.nodes);
    if (state.spec.hideable) $("add-hidden").placeholder = state.spec.hideable.join(", ");
  }
}

function action() {
  return state.spec.actions[$("act-kind").value] || { target: true, fields: [] };
}

function actionOptions() {
  const kind = $("act-kind").value;
  const fields = fieldSet(action().fields, "act");
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
  $("act-submit").disabled = view.status !== "running";
  $("turn-hint").textContent =
    view.status === "open"
      ? "Waiting for initiative."
      : view.status !== "running"
        ? `The bout is ${view.status}.`
        : yourTurn
          ? view.free_attack
            ? `${me()}: a free attack (MSV-4 critical) - strike again!`
            : `${me()}'s turn.`
          : `${view.turn}'s turn.`;
  $("act-form").classList.toggle("your-turn", yourTurn);
}

function wireActions() {
  const form = $("act-form");
  if (form) {
    $("act-target").addEventListener("change", () => state.view && updateActForm(state.view));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      attempt(async () => {
        const kind = $("act-kind").value;
        const options = state.actForm.read();
        const target = $("act-target").value;
        if (kind === "attack") {
          return state.bout.post("/attacks", { attacker: me(), target, ...options });
        }
        const named = action().target ? { target, ...options } : options;
        return state.bout.post("/actions", { actor: me(), kind, options: named });
      }, (answer) => answer.summary || "Done.");
    });
  }
  const roll = $("roll-form");
  if (roll) {
    roll.addEventListener("submit", (ev) => {
      ev.preventDefault();
      attempt(
        () => state.bout.post("/rolls", { dice: $("roll-dice").value.trim() }),
        (r) => `${r.actor} rolled ${r.dice.join(" ")}: ${r.faces.join(" ")} (nonce ${r.nonce})`,
      );
    });
  }
}

// ---- the referee's powers -----------------------------------------------------------------

function power(path, done, body) {
  return attempt(() => state.bout.post(`/${path}`, body), done);
}

function wireReferee() {
  const buttons = {
    initiative: ["initiative", (r) => `Initiative: ${r.order.join(", ")}`],
    pause: ["pause", "Paused."],
    resume: ["resume", "Resumed."],
    skip: ["skip", "Turn skipped."],
    void: ["void", "Last action voided (kept in the log, struck through)."],
    cancel: ["cancel", "Bout cancelled."],
    "rotate-seed": ["rotate-seed", "Server seed revealed and replaced by a new committed one."],
  };
  for (const [id, [path, done]] of Object.entries(buttons)) {
    $(`do-${id}`).addEventListener("click", () => power(path, done));
  }
  $("do-close").addEventListener("click", async () => {
    await power("close", "Bout closed: the server seed is revealed, anyone can verify it now.");
    });
  $("do-handover").addEventListener("click", async () => {
    const r = await power("handover", "A new referee token: give the link below to the new referee.");
    if (r) {
      const url = `${location.origin}/static/referee.html#bout=${encodeURIComponent(params.bout)}&token=${encodeURIComponent(r.referee_token)}`;
      fill($("handover-link"), el("a", { href: url }, "New referee page"), " ", el("code", {}, url));
    }
  });
  $("end-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const winner = $("end-winner").value || null;
    const reason = $("end-reason").value.trim() || null;
    power("end", "Bout ended.", { winner, reason });
  });
  $("override-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const wounds = {};
    for (const input of $("override-wounds").querySelectorAll("input")) {
      if (input.value.trim() !== "") wounds[input.dataset.name] = Number(input.value);
    }
    const of = Number($("override-of").value);
    power("override", `Outcome #${of} overridden; the original stays in the log.`, { of, wounds, note: $("override-note").value });
  });
  $("add-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    attempt(async () => {
      const body = { name: $("add-name").value.trim(), ...state.spec.body(state.addForm.read()) };
      const side = $("add-side").value.trim();
      if (side) body.side = side;
      const hidden = $("add-hidden").value.split(",").map((s) => s.trim()).filter(Boolean);
      if (hidden.length) body.hidden = hidden;
      const r = await state.bout.post("/fighters", body);
      addInvite(r.name, r.token);
      return r;
    }, (r) => `${r.name} added: send the invite link below.`);
  });
  $("update-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    attempt(() => {
      const body = {};
      const wounds = $("update-wounds").value.trim();
      if (wounds !== "") body.wounds = Number(wounds);
      const stats = $("update-stats").value.trim();
      if (stats) {
        const parsed = JSON.parse(stats);
        if (state.view.system === "msv" && "cs" in parsed) body.cs = parsed.cs;
        else body.sheet = parsed;
      }
      return state.bout.patch(`/fighters/${encodeURIComponent($("update-name").value)}`, body);
    }, "Fighter updated.");
  });
  for (const [name, token] of Object.entries(loadInvites())) addInvite(name, token, false);
  $("join-url").textContent = `${location.origin}/static/join.html#bout=${encodeURIComponent(params.bout)}`;
}

function fighterControls(f) {
  const buttons = [
    el("button", { type: "button", class: "small", onclick: () => attempt(() => state.bout.delete(`/fighters/${encodeURIComponent(f.name)}`), `${f.name} removed.`) }, `Remove ${f.name}`),
  ];
  if (f.hidden && f.hidden.length) {
    buttons.push(el("button", { type: "button", class: "small", onclick: () => attempt(() => state.bout.post(`/fighters/${encodeURIComponent(f.name)}/reveal`, {}), `${f.name}'s hidden stats revealed.`) }, `Reveal ${f.name}`));
  }
  return el("div", { class: "buttons" }, buttons);
}

function prefillOverride(outcome) {
  $("override-of").value = outcome.seq;
  const original = [];
  for (const e of state.events) {
    if (e.seq <= outcome.seq) continue;
    if (e.type === "action" || (e.type !== "wound" && e.actor !== "system")) break;
    if (e.type === "wound") original.push(e.payload);
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

/** Offer only the powers that apply now (the service would refuse the others anyway). */
function updatePowers(view) {
  const live = ["open", "running", "paused"].includes(view.status);
  const enable = {
    initiative: view.status === "open",
    pause: view.status === "running",
    resume: view.status === "paused",
    skip: view.status === "running",
    void: !view.closed && view.status !== "cancelled",
    cancel: live,
    close: !view.closed,
    "rotate-seed": !view.closed,
    handover: !view.closed,
  };
  for (const [id, on] of Object.entries(enable)) $(`do-${id}`).disabled = !on;
  $("end-form").querySelector("button").disabled = !live;
  $("do-initiative").hidden = view.status !== "open";
  $("join-box").hidden = view.status !== "open"; // fighters may join only before initiative
}

function updateRefereeSelects(view) {
  updatePowers(view);
  const names = view.fighters.map((f) => f.name);
  nameOptions($("update-name"), names);
  nameOptions($("end-winner"), [...new Set(view.fighters.map((f) => f.side))], { empty: "(no winner)" });
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
  $("invites").append(el("li", {}, el("a", { href: url, target: "_blank", rel: "noopener" }, `Invite link for ${name}`), " ", el("code", {}, url)));
}

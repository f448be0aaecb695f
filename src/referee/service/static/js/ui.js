// Page pieces shared by every page: labelled form fields, the fighters, the turn order,
// damage bars, conditions (the SRP map: map.js).

import { el, fill } from "./api.js";
import { conditionWords, readField } from "./systems.js";

/**
 * Labelled controls for a list of field specs (ids PREFIX-KEY, so keep prefixes unique on a
 * page); `read()` returns the filled-in values.
 */
export function fieldSet(fields, prefix) {
  const controls = new Map();
  const nodes = fields.map((field) => {
    const id = `${prefix}-${field.key}`;
    const control = makeControl(field, id);
    controls.set(field.key, control);
    const label = el("label", { for: id }, field.label);
    const help = field.help ? el("small", { class: "help" }, field.help) : null;
    const cls = field.type === "checkbox" ? "field check" : "field";
    const suggestions = field.suggest
      ? el("datalist", { id: `${id}-list` }, field.suggest.map((v) => el("option", { value: v })))
      : null;
    if (suggestions) control.setAttribute("list", `${id}-list`);
    return field.type === "checkbox"
      ? el("div", { class: cls }, control, label, help)
      : el("div", { class: cls }, label, control, help, suggestions);
  });
  const read = () => {
    const values = {};
    for (const field of fields) {
      const value = readField(field, controls.get(field.key));
      if (value !== undefined) values[field.key] = value;
    }
    return values;
  };
  return { nodes, read, controls };
}

function makeControl(field, id) {
  const name = field.key;
  if (field.type === "select") {
    const select = el("select", { id, name });
    for (const option of field.options) {
      select.append(el("option", { value: option, selected: option === (field.value ?? "") }, option || "(default)"));
    }
    return select;
  }
  if (field.type === "checkbox") return el("input", { id, name, type: "checkbox", checked: !!field.value });
  if (field.type === "json") return el("textarea", { id, name, rows: 2, spellcheck: "false" }, field.value || "");
  return el("input", {
    id,
    name,
    type: field.type === "number" ? "number" : "text",
    inputmode: field.type === "number" ? "numeric" : null,
    min: field.min,
    max: field.max,
    step: field.step,
    value: field.value,
    required: field.required,
    autocomplete: "off",
  });
}

/** A select of names (shown as `label(name)`), with an optional first empty choice. */
export function nameOptions(select, names, { empty = null, keep = true, label = (name) => name } = {}) {
  const before = select.value;
  select.replaceChildren();
  if (empty !== null) select.append(el("option", { value: "" }, empty));
  for (const name of names) select.append(el("option", { value: name }, label(name)));
  if (keep && names.includes(before)) select.value = before;
}

/** A side as people name it: its fighters, and the side's name when it is not one of theirs
 * ("Tarl (Ko-ro-ba)", "Tarl and Rask (Ko-ro-ba)", "Pa-Kur"). */
export function sideWords(view, side) {
  const names = view.fighters.filter((f) => f.side === side).map((f) => f.name);
  if (!names.length) return side;
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return names.length === 1 && names[0] === side ? listed : `${listed} (${side})`;
}

/** Who won, in words: "Tarl (Ko-ro-ba) won", "no winner". */
export function winnerWords(view) {
  return view.winner ? `${sideWords(view, view.winner)} won` : "no winner";
}

/** Where the bout stands, as a sentence ("The bout is over: Tarl (Ko-ro-ba) won."). */
export function boutWords(view) {
  if (view.closed) {
    const how = view.status === "cancelled" ? "was cancelled" : view.winner ? `is over: ${winnerWords(view)}` : "is over, with no winner";
    return `The bout ${how}; it is closed and its seed revealed.`;
  }
  return {
    open: "The bout has not begun: waiting for initiative.",
    running: "The bout is running.",
    paused: "The bout is paused.",
    ended: view.winner ? `The bout is over: ${winnerWords(view)}.` : "The bout is over, with no winner.",
    cancelled: "The bout was cancelled.",
  }[view.status] || `The bout is ${view.status}.`;
}

/** Where a bout stands, in a few words for a list ("running: round 2, Tarl to act";
 * "running: your turn" when `you` is to act; "over: Tarl (Ko-ro-ba) won"; "closed: ..."). */
export function stateWords(view, you = null) {
  const end = view.status === "cancelled" ? "cancelled" : view.winner ? `over: ${winnerWords(view)}` : "over, no winner";
  if (view.closed) return `closed (${end}); seed revealed`;
  if (view.status === "open") return "open: waiting for initiative";
  if (view.status === "paused") return `paused in round ${view.round}`;
  if (view.status === "running") {
    if (you && view.turn === you) return `running: your turn (round ${view.round})`;
    return `running: round ${view.round}${view.turn ? `, ${view.turn} to act` : ""}`;
  }
  return ["ended", "cancelled"].includes(view.status) ? end : view.status;
}

/** The bout's status line: status, round, whose turn, winner. */
export function statusText(view) {
  const parts = [`${view.system.toUpperCase()} · ${view.status}`];
  if (view.round) parts.push(`round ${view.round}`);
  if (view.turn) parts.push(`${view.turn} to act`);
  if (view.free_attack) parts.push(`free attack (MSV-4 critical)`);
  if (view.status === "ended") parts.push(winnerWords(view));
  if (view.closed) parts.push("closed: seed revealed");
  return parts.join(" · ");
}

/**
 * Ask before an action that cannot be undone: a modal dialog that says what the action does
 * and what it reveals. Resolves to true only when the person presses `yes`; Escape, the
 * other button or closing the dialog is no. The safe answer has the focus.
 */
export function confirmAction({ title, lines, yes, no = "Go back", danger = false }) {
  return new Promise((resolve) => {
    const heading = el("h2", { id: "confirm-title" }, title);
    const keep = el("button", { type: "button", class: "confirm-no", value: "no" }, no);
    const go = el("button", { type: "button", class: `confirm-yes${danger ? " danger-solid" : " primary"}`, value: "yes" }, yes);
    const dialog = el(
      "dialog",
      { class: "confirm", "aria-labelledby": "confirm-title", "aria-describedby": "confirm-body" },
      heading,
      el("div", { id: "confirm-body" }, lines.filter(Boolean).map((line) => el("p", {}, line))),
      el("div", { class: "buttons" }, keep, go),
    );
    let answer = false;
    keep.addEventListener("click", () => dialog.close());
    go.addEventListener("click", () => {
      answer = true;
      dialog.close();
    });
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    keep.focus();
  });
}

/** The turn order, the current fighter marked. */
export function renderOrder(node, view) {
  if (!view.order.length) {
    fill(node, el("p", { class: "muted" }, "No initiative yet."));
    return;
  }
  fill(
    node,
    el(
      "ol",
      { class: "order" },
      view.order.map((name) => {
        const f = view.fighters.find((x) => x.name === name);
        const current = view.turn === name;
        return el(
          "li",
          { class: [current ? "current" : "", f && f.defeated ? "defeated" : ""].join(" ").trim(), "aria-current": current ? "step" : null },
          name,
          current ? el("span", { class: "badge" }, view.free_attack === name ? "free attack" : "to act") : null,
        );
      }),
    ),
  );
}

/** A damage bar: wounds against the defeat threshold. */
export function damageBar(f) {
  const max = f.threshold || 1;
  const ratio = Math.min(1, f.wounds / max);
  const label = `${f.name}: ${f.wounds} of ${max} damage`;
  return el(
    "div",
    { class: "bar", role: "meter", "aria-label": label, "aria-valuemin": 0, "aria-valuemax": max, "aria-valuenow": f.wounds },
    fillTo(el("span", { class: "fill" }), ratio),
    el("span", { class: "bar-text" }, `${f.wounds} / ${max}`),
  );
}

// Set through the CSSOM, not a style attribute, so a strict Content-Security-Policy holds.
function fillTo(node, ratio) {
  node.style.width = `${(ratio * 100).toFixed(1)}%`;
  return node;
}

/** Condition chips: "stunned", "grappled (2)". */
export function conditionChips(f) {
  const entries = Object.entries(f.conditions || {});
  if (!entries.length) return null;
  return el(
    "ul",
    { class: "chips", "aria-label": `${f.name}'s conditions` },
    entries.map(([name, rounds]) => el("li", { class: "chip", dataset: { condition: name } }, rounds === null ? conditionWords(name) : `${conditionWords(name)} (${rounds})`)),
  );
}

const SKIP_STATS = new Set(["weapons", "holds", "extra_attack_round", "x_cm", "y_cm"]);
const KEEP_ZERO = new Set(["cs", "hits", "defense", "armor", "facing"]);

function statText(key, value) {
  if (key === "skills" && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${k} ${v}`).join(", ") || "-";
  }
  if (key === "facing") return `${value}°`;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** The stats of a fighter as a small definition list; hidden ones marked for the referee. */
export function statList(f) {
  const hidden = new Set(f.hidden || []);
  const stats = f.stats || {};
  const items = [];
  const add = (key, text, isHidden = false) =>
    items.push(el("dt", {}, key), el("dd", { class: isHidden ? "hidden-stat" : null, dataset: { stat: key } }, text, isHidden ? " (hidden)" : ""));
  // A fighter with a Spirit shows its PM even at 0 (spent in spirit combat, SRP-17).
  const keepZero = (key) => KEEP_ZERO.has(key) || (key === "pm" && Boolean(stats.spirit));
  for (const [key, value] of Object.entries(stats)) {
    if (SKIP_STATS.has(key) || value === null || value === false) continue;
    if (value === 0 && !keepZero(key)) continue;
    add(key, statText(key, value), hidden.has(key));
  }
  const weapons = stats.weapons || [];
  if (weapons.length) {
    add("weapon", weapons.map((w) => `${w.name} (+${w.damage}, reach ${(w.reach_cm || 150) / 100} m${w.codes && w.codes.length ? `, ${w.codes.join(" ")}` : ""})`).join("; "));
  }
  if (Number.isInteger(stats.x_cm) && Number.isInteger(stats.y_cm)) {
    add("position", `(${stats.x_cm / 100}, ${stats.y_cm / 100}) m`);
  }
  return el("dl", { class: "stats" }, items);
}

/** One card per fighter: side, damage bar, conditions, stats; `extra(f)` adds controls. */
export function renderFighters(node, view, extra = () => null) {
  if (!view.fighters.length) {
    fill(node, el("p", { class: "muted" }, "No fighters yet."));
    return;
  }
  fill(
    node,
    view.fighters.map((f) =>
      el(
        "article",
        { class: `fighter${f.defeated ? " defeated" : ""}${view.turn === f.name ? " current" : ""}`, dataset: { name: f.name } },
        el("h3", {}, f.name, " ", el("small", {}, `side ${f.side}`), f.defeated ? el("span", { class: "badge down" }, "defeated") : null),
        damageBar(f),
        conditionChips(f),
        statList(f),
        extra(f),
      ),
    ),
  );
}

// The SRP map lives in map.js (interactive: drag to move, facing handle, distances).
export { hasPositions, renderMap } from "./map.js";

/** Copy `text` to the clipboard (the Clipboard API, or a hidden field where it is missing). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el("textarea", { class: "offscreen", readonly: true }, text);
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/** A small "copy" button; `getText()` gives what it copies. The last copy is kept on the page
 * (`body[data-copied]`) so that what was copied can be seen and tested. */
export function copyButton(getText, label, shown = "copy") {
  const button = el("button", { type: "button", class: "small copy", title: label, "aria-label": label }, shown);
  button.addEventListener("click", async () => {
    const text = getText();
    const ok = await copyText(text);
    document.body.dataset.copied = text;
    button.textContent = ok ? "copied" : "select and copy";
    setTimeout(() => (button.textContent = shown), 1500);
  });
  return button;
}

/** Enable a control, or disable it with the reason in its tooltip (and for screen readers). */
/** How an action's answer is shown: `error` when it failed after its dice were thrown (its
 * rolls are stored, nothing else changed), `info` when it was taken and did not work (a
 * disarm, entangle, grapple or unhorse that failed, a break-free that did not free), `ok`
 * otherwise. Green is for what worked.
 *
 * answerTone({ failed: "no target" }) === "error"; answerTone({ worked: false }) === "info" */
export function answerTone(answer) {
  if (!answer || answer.failed) return "error";
  if (answer.worked === false || answer.freed === false) return "info";
  return "ok";
}

export function gate(control, reason) {
  if (!control) return;
  control.disabled = !!reason;
  if (reason) {
    control.title = reason;
    control.setAttribute("aria-description", reason);
  } else {
    control.removeAttribute("title");
    control.removeAttribute("aria-description");
  }
}

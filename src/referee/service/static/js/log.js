// The dice log: every event of the bout as one line, rolls with their nonce and faces, each
// action's outcome with its `summary` (and SRP's explanation lines), overrides shown beside
// the outcome they replace (SRP-20), voided actions struck through, critical chains (MSV-4)
// marked as free attacks.

import { el } from "./api.js";

function rollText(p) {
  const dice = p.dice || [];
  const faces = p.faces || [];
  return dice.map((d, i) => `${d} ${faces[i]}`).join(" · ");
}

function optionText(options) {
  const rest = Object.entries(options || {}).filter(([k]) => k !== "target");
  return rest.length ? ` (${rest.map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`).join(", ")})` : "";
}

const LINES = {
  bout_opened: (e) => `Bout "${e.payload.name}" opened (${e.payload.system})`,
  fighter_added: (e) => `${e.payload.name} joins on side ${e.payload.side}`,
  fighter_updated: (e) =>
    `Referee updates ${e.payload.name}` +
    (e.payload.wounds !== undefined ? `: wounds set to ${e.payload.wounds}` : "") +
    (e.payload.stats ? ": stats changed" : ""),
  fighter_removed: (e) => `${e.payload.name} leaves the bout`,
  revealed: (e) => `Referee reveals ${e.payload.name}'s ${e.payload.keys.join(", ")}`,
  initiative: (e) => `Initiative: ${e.payload.order.join(", ")}`,
  wound: (e) => `${e.payload.target} takes ${e.payload.amount} (total ${e.payload.total})`,
  condition: (e) =>
    e.payload.rounds === 0
      ? `${e.payload.target}: ${e.payload.condition} ends`
      : `${e.payload.target}: ${e.payload.condition}${e.payload.rounds === null ? "" : ` (${e.payload.rounds} turn${e.payload.rounds === 1 ? "" : "s"} left)`}`,
  stat: (e) => `${e.payload.target}: ${e.payload.key} = ${JSON.stringify(e.payload.value)}`,
  defeated: (e) => (e.payload.defeated ? `${e.payload.name} is defeated` : `${e.payload.name} is back on their feet`),
  turn: (e) => `Round ${e.payload.round}: ${e.payload.fighter}'s turn`,
  skipped: (e) => `${e.payload.name}'s turn passes: ${e.payload.reason}`,
  paused: () => "Referee pauses the bout",
  resumed: () => "Referee resumes the bout",
  voided: (e) => `Referee voids events ${e.payload.from}..${e.payload.to}`,
  ended: (e) => `Bout ended: ${e.payload.winner ? `side ${e.payload.winner} wins` : "no winner"} (${e.payload.reason})`,
  cancelled: (e) => `Bout cancelled (${e.payload.reason})`,
  referee_changed: () => "The bout was handed to another referee",
  seed_rotated: (e) => `Server seed ${e.payload.index - 1} revealed; new commitment ${e.payload.next_commitment.slice(0, 12)}…`,
  closed: (e) => `Bout closed: server seed revealed (${e.payload.server_seed.slice(0, 12)}…)`,
};

/** The log of one page: `add(event)` appends it; `onOverride(outcome)` for the referee. */
export class DiceLog {
  constructor(list, { onOverride = null } = {}) {
    this.list = list;
    this.onOverride = onOverride;
    this.items = new Map();
    this.freeChain = new Map(); // actor -> number of free attacks in the current chain
    this.pendingFree = null;
  }

  add(event) {
    const item = this.line(event);
    if (!item) return;
    item.dataset.seq = event.seq;
    item.dataset.type = event.type;
    if (event.actor === "system") item.classList.add("consequence");
    this.items.set(event.seq, item);
    const stick = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    this.list.append(item);
    if (stick) this.list.scrollTop = this.list.scrollHeight;
  }

  line(event) {
    const seq = el("span", { class: "seq" }, `#${event.seq}`);
    switch (event.type) {
      case "action":
        return this.actionLine(event, seq);
      case "roll":
        return el(
          "li",
          { class: "roll" },
          seq,
          el("span", { class: "die" }, "roll"),
          el("span", { class: "nonce" }, event.payload.nonce === null ? "unverifiable" : `nonce ${event.payload.nonce}`),
          el("strong", { class: "faces" }, rollText(event.payload)),
        );
      case "outcome":
        return this.outcomeLine(event, seq);
      case "overridden":
        return this.overrideLine(event, seq);
      case "voided":
        this.markVoided(event.payload.from, event.payload.to);
        return el("li", { class: "power" }, seq, LINES.voided(event));
      default: {
        const text = LINES[event.type] ? LINES[event.type](event) : `${event.type} ${JSON.stringify(event.payload)}`;
        return el("li", { class: event.type }, seq, text);
      }
    }
  }

  actionLine(event, seq) {
    const p = event.payload;
    const by = p.by && p.by !== event.actor ? ` (sent by ${p.by})` : "";
    let text;
    if (p.kind === "initiative") text = "Initiative";
    else if (p.kind === "roll" && p.expression) text = `${event.actor} rolls ${p.expression} = ${p.total} (free roll)`;
    else if (p.kind === "roll") text = `${event.actor} rolls ${p.dice.length} × ${p.dice[0]} (free roll)`;
    else {
      const target = p.options && p.options.target ? ` → ${p.options.target}` : "";
      text = `${event.actor}: ${p.kind}${target}${optionText(p.options)}`;
    }
    const free = this.pendingFree === event.actor && p.kind !== "roll";
    const item = el("li", { class: `action${free ? " free-attack" : ""}` }, seq, text + by);
    if (free) {
      const n = (this.freeChain.get(event.actor) || 0) + 1;
      this.freeChain.set(event.actor, n);
      item.prepend(el("span", { class: "badge chain" }, `⤷ free attack ${n} (MSV-4 chain)`));
    } else if (p.kind !== "roll") {
      this.freeChain.set(event.actor, 0);
    }
    if (p.kind !== "roll") this.pendingFree = null;
    return item;
  }

  outcomeLine(event, seq) {
    const p = event.payload;
    const item = el("li", { class: "outcome" }, seq, el("strong", { class: "summary" }, p.summary || p.kind));
    if (p.critical) item.classList.add("critical");
    if (p.extra_action) {
      this.pendingFree = p.actor;
      item.append(el("span", { class: "badge crit" }, "critical: free attack follows"));
    }
    if (Array.isArray(p.explanation) && p.explanation.length) {
      item.append(el("details", { class: "explain" }, el("summary", {}, "why"), el("ol", {}, p.explanation.map((line) => el("li", {}, line)))));
    }
    if (this.onOverride) {
      item.append(el("button", { type: "button", class: "small", onclick: () => this.onOverride(event), "aria-label": `Override outcome #${event.seq}` }, "Override"));
    }
    return item;
  }

  overrideLine(event, seq) {
    const p = event.payload;
    const was = p.original.map((w) => `${w.target} ${w.amount}`).join(", ") || "no wounds";
    const now = p.wounds.map((w) => `${w.target} ${w.amount}`).join(", ") || "no wounds";
    const text = `Referee overrides #${p.of}: ${was} → ${now}${p.note ? ` (“${p.note}”)` : ""}`;
    const original = this.items.get(p.of);
    if (original) {
      original.classList.add("overridden");
      original.append(el("span", { class: "override-note" }, `overridden by #${event.seq}: ${now}`));
    }
    return el("li", { class: "power override" }, seq, text);
  }

  markVoided(from, to) {
    for (const [seq, item] of this.items) {
      if (seq >= from && seq <= to) {
        item.classList.add("voided");
        item.setAttribute("aria-description", "voided by the referee");
      }
    }
  }
}

// The dice log: every event of the bout as one line in the words of sentences.js (the twin of
// referee.sentences), rolls with their nonce and faces, each action's outcome with its
// `summary` (and SRP's explanation lines), overrides shown beside the outcome they replace
// (SRP-20), voided actions struck through, critical chains (MSV-4) marked as free attacks.

import { el } from "./api.js";
import { Ground, actionWords, statWords } from "./srpwords.js";
import { facesText, sentence, streamText } from "./sentences.js";
import { boutAsChat } from "./transcript.js";
import { copyButton, winnerWords } from "./ui.js";
import { EventType } from "./vocabulary.js";

/** The event's time as a <time>: local hh:mm:ss, the full local stamp (and UTC) on hover. */
export function timeStamp(at) {
  const when = new Date(at);
  if (!at || Number.isNaN(when.getTime())) return null;
  const short = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  const full = `${when.toLocaleString([], { dateStyle: "full", timeStyle: "long" })} (${at})`;
  return el("time", { datetime: at, title: full, class: "at" }, short);
}

/** A log line as one plain chat line: "[19:02:11] #5 Tarl rolls ..." (buttons left out). */
export function chatText(item) {
  const clone = item.cloneNode(true);
  for (const node of clone.querySelectorAll("button, details, .badge")) node.remove();
  const at = clone.querySelector("time");
  const stamp = at ? `[${at.textContent}] ` : "";
  if (at) at.remove();
  const parts = [...clone.childNodes].map((n) => n.textContent.trim()).filter(Boolean);
  return stamp + parts.join(" ").replace(/\s+/g, " ");
}

/** Who rolled what in an initiative, round by round: roll, effect number, ties that reroll. */
function initiativeDetail(detail) {
  const rounds = (detail && detail.rounds) || [];
  if (rounds.length) {
    return el(
      "ol",
      { class: "initiative-rounds" },
      rounds.map((r) =>
        el(
          "li",
          {},
          `Round ${r.round}${r.round > 1 ? " (reroll)" : ""}: `,
          r.rolls.map((x, i) => [i ? ", " : "", el("span", { class: "init-roll", dataset: { name: x.name } }, `${x.name} rolled ${x.roll} (CS ${x.cs}) → effect ${x.effect}`)]).flat(),
          (r.ties || []).map((t) => el("span", { class: "tie" }, ` · tie: ${t.join(" and ")} reroll`)),
          r.unrollable ? el("span", { class: "tie" }, " · no one can roll: order as listed") : null,
        ),
      ),
    );
  }
  const rolls = detail && detail.rolls && typeof detail.rolls === "object" ? Object.entries(detail.rolls) : [];
  if (!rolls.length) return null;
  return el("ol", { class: "initiative-rounds" }, el("li", {}, rolls.map(([name, v], i) => [i ? ", " : "", el("span", { class: "init-roll", dataset: { name } }, `${name} rolled ${typeof v === "object" ? JSON.stringify(v) : v}`)]).flat()));
}

/** The names the initiative's rolls belong to, in the order they were thrown. */
function initiativeRollers(detail) {
  const rounds = (detail && detail.rounds) || [];
  if (rounds.length) return rounds.flatMap((r) => r.rolls.map((x) => x.name));
  return detail && detail.rolls && typeof detail.rolls === "object" ? Object.keys(detail.rolls) : [];
}

/** The log of one page: `add(event)` appends it; `onOverride(outcome)` for the referee. */
export class DiceLog {
  constructor(list, { onOverride = null } = {}) {
    this.list = list;
    this.onOverride = onOverride;
    this.items = new Map();
    this.freeChain = new Map(); // actor -> number of free attacks in the current chain
    this.pendingFree = null;
    this.initiativeRolls = null; // roll lines since an initiative action, to name their rollers
    this.events = []; // every event shown, for "Copy as chat" (an AOL-style transcript)
    this.ground = new Ground(); // where SRP fighters stand, to say moves in metres and words
    this.system = undefined; // the bout's rule system (its words), from its opening event
    const whole = copyButton(() => this.transcript(), "Copy the whole bout as an AOL-style chat transcript with receipts", "Copy as chat");
    whole.id = "copy-chat";
    list.before(whole);
  }

  /** The bout so far as chat lines with receipts, as `referee export --chat` writes it. */
  transcript() {
    return boutAsChat(this.events).join("\n") + "\n";
  }

  add(event) {
    this.events.push(event);
    if (event.type === EventType.BOUT_OPENED) this.system = event.payload.system;
    const item = this.line(event);
    this.ground.see(event);
    if (!item) return;
    item.dataset.seq = event.seq;
    item.dataset.type = event.type;
    if (event.actor === "system") item.classList.add("consequence");
    const stamp = timeStamp(event.at);
    if (stamp) item.firstChild.after(" ", stamp);
    item.append(copyButton(() => chatText(item), `Copy line #${event.seq} as chat`, "as chat"));
    this.items.set(event.seq, item);
    const stick = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    this.list.append(item);
    if (stick) this.list.scrollTop = this.list.scrollHeight;
  }

  line(event) {
    const seq = el("span", { class: "seq" }, `#${event.seq}`);
    switch (event.type) {
      case EventType.ACTION:
        return this.actionLine(event, seq);
      case EventType.ROLL:
        if (this.initiativeRolls) {
          const item = this.rollLine(event, seq);
          this.initiativeRolls.push(item);
          return item;
        }
        return this.rollLine(event, seq);
      case EventType.INITIATIVE:
        return this.initiativeLine(event, seq);
      case EventType.OUTCOME:
        return this.outcomeLine(event, seq);
      case EventType.OVERRIDDEN:
        return this.overrideLine(event, seq);
      case EventType.VOIDED:
        this.markVoided(event.payload.from, event.payload.to);
        return el("li", { class: "power" }, seq, this.said(event));
      default: {
        const words = event.type === EventType.STAT ? statWords(event.payload, this.ground) : event.type === EventType.ENDED ? this.endedWords(event.payload) : null;
        return el("li", { class: event.type }, seq, words || this.said(event));
      }
    }
  }

  /** The event's sentence (sentences.js); an event of a type this page does not know as JSON. */
  said(event) {
    try {
      return sentence(event, this.system);
    } catch {
      return `${event.type} ${JSON.stringify(event.payload)}`;
    }
  }

  rollLine(event, seq) {
        return el(
          "li",
          { class: "roll" },
          seq,
          el("span", { class: "die" }, "roll"),
          el("span", { class: "nonce" }, streamText(event.payload)),
          el("strong", { class: "faces" }, facesText(event.payload)),
        );
  }

  initiativeLine(event, seq) {
    const detail = event.payload.detail;
    const names = initiativeRollers(detail);
    for (const [i, item] of (this.initiativeRolls || []).entries()) {
      if (names[i]) item.querySelector(".die").textContent = `${names[i]}'s initiative roll`;
    }
    this.initiativeRolls = null;
    return el("li", { class: "initiative" }, seq, this.said(event), initiativeDetail(detail));
  }

  actionLine(event, seq) {
    const p = event.payload;
    if (p.kind === "initiative") this.initiativeRolls = [];
    const free = this.pendingFree === event.actor && p.kind !== "roll";
    const item = el("li", { class: `action${free ? " free-attack" : ""}` }, seq, actionWords(event, this.ground) || this.said(event));
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
    const item = el("li", { class: "outcome" }, seq, el("strong", { class: "summary" }, p.summary ? this.said(event) : p.kind));
    if (p.critical) item.classList.add("critical");
    if (p.extra_action) {
      this.pendingFree = p.actor;
      item.append(el("span", { class: "badge crit" }, "critical: free attack follows"));
    }
    if (Array.isArray(p.explanation) && p.explanation.length) {
      item.append(el("details", { class: "explain" }, el("summary", {}, "why"), el("ol", {}, p.explanation.map((line) => el("li", {}, line)))));
    }
    if (this.onOverride) {
      item.append(el("button", { type: "button", class: "small changes", onclick: () => this.onOverride(event), "aria-label": `Override outcome #${event.seq}` }, "Override"));
    }
    return item;
  }

  overrideLine(event, seq) {
    const p = event.payload;
    const now = p.wounds.map((w) => `${w.target} ${w.amount}`).join(", ") || "no wounds";
    const text = this.said(event);
    const original = this.items.get(p.of);
    if (original) {
      // Struck out only when the override changes what the outcome dealt: a move (or any
      // outcome) whose wounds it leaves as they were still stands as it was.
      const before = new Map((p.original || []).map((t) => [t.target, t.amount]));
      const changed = p.wounds.some((w) => (before.get(w.target) || 0) !== w.amount) || (p.original || []).some((t) => !p.wounds.some((w) => w.target === t.target));
      if (changed) original.classList.add("overridden");
      const note = changed ? `overridden by #${event.seq}: ${now}` : `override #${event.seq} changed nothing (${now})`;
      original.append(el("span", { class: "override-note" }, note));
    }
    return el("li", { class: "power override" }, seq, text);
  }

  /** "The bout is over: Tarl (Ko-ro-ba) won (one side is left)": the winner by its
   * fighters, as the page's status says it. */
  endedWords(p) {
    const fighters = [...this.ground.fighters].map(([name, f]) => ({ name, side: f.side }));
    return `The bout is over: ${winnerWords({ fighters, winner: p.winner })} (${p.reason})`;
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

// One sentence per event: the web console's twin of referee.sentences (Python), word for word.
// tests/test_sentences.py renders every event type of both rule systems through both and
// compares. A roll is said as the chat host says it (rollLine), with its receipt.

import { SYSTEMS } from "./systems.js";
import { EventType } from "./vocabulary.js";

const REFEREE = "Referee";

/** An actor as a sentence names it: the referee as `Referee`, a fighter by name. */
export function who(actor) {
  return actor === "referee" ? REFEREE : String(actor);
}

/** A condition as people read it: the rule system's words, else its name unbarred. */
export function conditionWords(name, system) {
  const words = (SYSTEMS[system] && SYSTEMS[system].conditions) || {};
  return Object.prototype.hasOwnProperty.call(words, name) ? words[name] : String(name).replaceAll("_", " ");
}

/** A stat's value in a sentence: text and whole numbers as they are, anything else as JSON. */
export function valueText(value) {
  if (typeof value === "string") return value;
  if (Number.isInteger(value)) return String(value);
  return JSON.stringify(value === undefined ? null : value);
}

/** A roll's receipt: " (nonce 4)", with its stream when it is not the roller's actions. */
export function receipt(payload, roller) {
  if (payload.nonce === null || payload.nonce === undefined) return "";
  const named = payload.stream && payload.stream !== `act:${roller}` ? `, ${payload.stream}` : "";
  return ` (nonce ${payload.nonce}${named})`;
}

/** A roll as the chat host says it: dice all alike as the AOL host line, mixed dice one by one. */
export function rollLine(roller, payload) {
  const dice = (payload.dice || []).map(String);
  const faces = (payload.faces || []).join(" ");
  const said = receipt(payload, roller);
  if (dice.length && new Set(dice).size === 1) {
    const noun = dice.length === 1 ? "die" : "dice";
    return `OnlineHost: ${roller} rolled ${dice.length} ${dice[0].slice(1)}-sided ${noun}: ${faces}${said}`;
  }
  return `${roller} rolls ${dice.join(" ")}: ${faces}${said}`;
}

/** Where a roll stands in its dice: `nonce 4 of act:Tarl`, `nonce 4` or `unverifiable`. */
export function streamText(payload) {
  if (payload.nonce === null || payload.nonce === undefined) return "unverifiable";
  return payload.stream ? `nonce ${payload.nonce} of ${payload.stream}` : `nonce ${payload.nonce}`;
}

/** Each die of a roll and its face: `d20 14 · d6 5`. */
export function facesText(payload) {
  const faces = payload.faces || [];
  return (payload.dice || []).slice(0, faces.length).map((d, i) => `${d} ${faces[i]}`).join(" · ");
}

/** A roll by itself: each die and its face, and where it stands in its dice. */
export function rollText(payload) {
  return `${facesText(payload)} (${streamText(payload)})`;
}

/** An action's options but its target: " (weapon axe, defend none)". */
// The settled order of initiative, as an `initiative` event says it (the judge's page says a
// log's order the same way); referee.sentences.order_text.
export function orderText(order) {
  return `Initiative: ${order.join(" > ")}`;
}

export function optionsText(options) {
  const rest = Object.entries(options || {}).filter(([k]) => k !== "target");
  return rest.length ? ` (${rest.map(([k, v]) => `${k} ${valueText(v)}`).join(", ")})` : "";
}

function action(e, a) {
  const actor = who(e.actor);
  const sent = a.by && a.by !== e.actor ? ` (sent by ${who(a.by)})` : "";
  const failed = a.failed ? " (failed)" : "";
  const freeRoll = `(free roll${a.failed ? ", failed" : ""})`;
  if (a.kind === "initiative") return `${actor} rolls initiative${failed}${sent}`;
  const label = a.label ? ` - ${a.label}` : "";
  if (a.kind === "roll" && a.expression) {
    const total = a.failed ? "" : ` = ${a.total}`;
    return `${actor} rolls ${a.expression}${total} ${freeRoll}${sent}${label}`;
  }
  if (a.kind === "roll") {
    const dice = a.dice || [];
    return `${actor} rolls ${dice.length} × ${dice.length ? dice[0] : "?"} ${freeRoll}${sent}${label}`;
  }
  const options = a.options || {};
  const target = "target" in options ? ` → ${options.target}` : "";
  return `${actor}: ${a.kind}${target}${optionsText(options)}${failed}${sent}`;
}

function updated(e, u) {
  const changed = [];
  if (u.stats !== undefined && u.stats !== null) changed.push("stats changed");
  if (u.wounds !== undefined && u.wounds !== null) changed.push(`wounds set to ${u.wounds}`);
  const why = u.reason ? ` (${u.reason})` : "";
  return `${u.name} is updated: ${changed.join(", ") || "nothing"}${why}`;
}

function added(e, f) {
  const joins = `${f.name} joins on side ${f.side || f.name}`;
  if (!f.carried) return joins;
  return `${joins}, carried from the last fight with ${f.wounds || 0} wounds taken`;
}

function wound(w, system) {
  const [one, many] = (SYSTEMS[system] && SYSTEMS[system].wounds) || ["wound", "wounds"];
  return `${w.target} takes ${w.amount} ${w.amount === 1 ? one : many} (${w.total} in all)`;
}

function condition(c, system) {
  const words = conditionWords(c.condition, system);
  if (c.rounds === 0) return `${c.target}: ${words} ends`;
  if (c.rounds === null || c.rounds === undefined) return `${c.target}: ${words} (until cleared)`;
  return `${c.target}: ${words} (${c.rounds} turn${c.rounds === 1 ? "" : "s"} left)`;
}

function stat(s) {
  if (s.key === "holds") return s.value ? `${s.target} holds ${s.value}` : `${s.target} lets go`;
  if (s.key === "mounted" && typeof s.value === "boolean") return `${s.target} is ${s.value ? "mounted" : "on foot"}`;
  return `${s.target}'s ${s.key} is now ${valueText(s.value)}`;
}

function overridden(e, o) {
  const was = (o.original || []).map((w) => `${w.target} ${w.amount}`).join(", ") || "no wounds";
  const now = (o.wounds || []).map((w) => `${w.target} ${w.amount}`).join(", ") || "no wounds";
  const note = o.note ? ` ("${o.note}")` : "";
  return `Event ${o.of} is overridden: wounds ${was} → ${now}${note}`;
}

const SAY = {
  [EventType.BOUT_OPENED]: (e, p) => `Bout "${p.name}" opened (${p.system})`,
  [EventType.FIGHTER_ADDED]: added,
  [EventType.FIGHTER_UPDATED]: updated,
  [EventType.FIGHTER_REMOVED]: (e, p) => `${p.name} leaves the bout`,
  [EventType.REVEALED]: (e, p) => `${p.name}'s ${(p.keys || []).join(", ") || "hidden stats"} revealed`,
  [EventType.CLIENT_SEED_FIXED]: (e, p) => `The client seed is fixed: ${p.client_seed}`,
  [EventType.ACTION]: action,
  [EventType.ROLL]: (e, p) => rollText(p),
  [EventType.INITIATIVE]: (e, p) => orderText(p.order),
  [EventType.OUTCOME]: (e, p) => String(p.summary),
  [EventType.FAILED]: (e, p) => `Could not be settled after its dice were recorded: ${p.error}`,
  [EventType.WOUND]: (e, p, system) => wound(p, system),
  [EventType.CONDITION]: (e, p, system) => condition(p, system),
  [EventType.STAT]: (e, p) => stat(p),
  [EventType.DEFEATED]: (e, p) => (p.defeated === false ? `${p.name} is back on their feet` : `${p.name} is defeated`),
  [EventType.TURN]: (e, p) => `Round ${p.round}: ${p.fighter}'s turn`,
  [EventType.SKIPPED]: (e, p) => `${p.name}'s turn passes: ${p.reason}`,
  [EventType.PAUSED]: () => "The bout is paused",
  [EventType.RESUMED]: () => "The bout is resumed",
  [EventType.JOINING_CLOSED]: () => "Joining is closed: no more fighters may join",
  [EventType.OVERRIDDEN]: overridden,
  [EventType.VOIDED]: (e, p) => `Events ${p.from}..${p.to} are voided (undone)`,
  [EventType.ENDED]: (e, p) => `Bout ended: ${p.winner ? `side ${p.winner} wins` : "no winner"} (${p.reason})`,
  [EventType.CANCELLED]: (e, p) => `Bout cancelled (${p.reason})`,
  [EventType.REFEREE_CHANGED]: () => "The bout was handed to another referee",
  [EventType.SEED_ROTATED]: (e, p) => `Server seed ${p.index - 1} revealed, nonces from 0; commitment ${p.next_commitment}`,
  [EventType.CLOSED]: (e, p) => `Bout closed: server seed ${p.server_seed} revealed`,
  [EventType.TIME_PASSED]: (e, p) => `${p.minutes} minutes of play pass (${p.reason}): minute ${p.clock} of the evening`,
};

/** How an initiative's rolls read, in the order they were thrown: [roller, reading] for each
 * roll, and ["", line] for a group that ties or cannot roll (MSV-5; SRP-19). */
export function initiativeReadings(detail, system) {
  if (!SYSTEMS[system] || !detail) return [];
  const out = [];
  for (const record of detail.rounds || []) {
    if (record.unrollable) {
      out.push(["", `${record.group.join(", ")} have CS 0: kept in the order given`]);
      continue;
    }
    const again = record.round > 1 ? ` (reroll ${record.round})` : "";
    for (const r of record.rolls) out.push([r.name, `${r.name}: ${r.roll} vs CS ${r.cs}, effect ${r.effect}${again}`]);
    for (const tie of record.ties || []) out.push(["", `tied: ${tie.join(", ")} - they roll again`]);
  }
  for (const r of detail.rolls || []) out.push([r.name, `${r.name}: d20 ${r.d20} + initiative ${r.initiative} = ${r.total}`]);
  return out;
}

/** The sentence one event says; `system` is the bout's rule system (its words). */
export function sentence(event, system) {
  const say = SAY[event.type];
  if (!say) throw new Error(`no sentence for an event of type ${event.type}`);
  return say(event, event.payload || {}, system);
}

/** Every event's sentence, in order (the system from the bout's opening event when not given). */
export function sentences(events, system) {
  const opened = events.find((e) => e.type === EventType.BOUT_OPENED);
  const known = system === undefined ? (opened ? String(opened.payload.system) : undefined) : system;
  return events.map((e) => sentence(e, known));
}

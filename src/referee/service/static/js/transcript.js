// A bout's events as an AOL-style chat transcript with the service's receipts, line for line
// what `referee export --chat` writes (referee.transcripts.chat_export): the host's line with
// its nonce for every roll, the referee's line for every consequence in the words of
// sentences.js, [hh:mm:ss] UTC stamps. `referee judge --export` (or the "Judge a log" page)
// decides it back to the bout's verdict.

import { initiativeReadings, rollLine, sentence, who } from "./sentences.js";
import { EventType } from "./vocabulary.js";

const REFEREE = "Referee";
// Events not said in the referee's words: an action shows as its rolls' host lines, the bout
// and its fighters as the announcement.
const SILENT = new Set([EventType.ACTION, EventType.ROLL, EventType.BOUT_OPENED, EventType.FIGHTER_ADDED]);

function stamp(event) {
  const at = String(event.at || "");
  return at.length >= 19 && at[13] === ":" ? `[${at.slice(11, 19)}] ` : "";
}

function skill(payload) {
  const cs = (payload.stats || {}).cs;
  return Number.isInteger(cs) ? `CS ${cs}` : "CS hidden";
}

function announcement(events) {
  const fighters = events.filter((e) => e.type === EventType.FIGHTER_ADDED).map((e) => e.payload);
  const named = fighters.map((p) => `${p.name} (${skill(p)})`);
  const sides = new Map();
  fighters.forEach((p, i) => {
    const side = String(p.side || p.name);
    if (!sides.has(side)) sides.set(side, []);
    sides.get(side).push(named[i]);
  });
  if (sides.size < named.length) {
    return `Spar: ${[...sides].map(([side, shown]) => `Team ${side}: ${shown.join(" & ")}`).join(" vs ")}`;
  }
  return named.length === 2 ? `Spar between ${named[0]} and ${named[1]}` : `Spar between ${named.join(", ")}`;
}

const said = (text) => `${REFEREE}: ${text}`;

function initiativeLines(rolls, payload, system) {
  const named = initiativeReadings(payload.detail, system).filter(([name]) => name);
  const lines = [];
  rolls.forEach((event, i) => {
    if (!named[i]) return;
    const [roller, reading] = named[i];
    lines.push(`${stamp(event)}${rollLine(roller, event.payload || {})}`);
    lines.push(`${stamp(event)}${said(reading)}`);
  });
  return lines;
}

/** The transcript of a bout's events (as the log or the export has them), one string per line. */
export function boutAsChat(events) {
  const opened = events.find((e) => e.type === EventType.BOUT_OPENED);
  const name = opened ? opened.payload.name : "";
  const system = opened ? opened.payload.system : undefined;
  const first = events.length ? stamp(events[0]) : "";
  const lines = [
    `${first}${said(announcement(events))}`,
    `${first}${said(`${name}: every roll has its receipt (nonce); judge it with referee judge --export`)}`,
  ];
  if (opened && opened.payload.commitment) {
    lines.push(`${first}${said(`commitment ${opened.payload.commitment} (published before any roll)`)}`);
  }
  let actor = "";
  let initiative = false;
  let pending = [];
  for (const event of events) {
    const payload = event.payload || {};
    if (event.type === EventType.ACTION) {
      actor = String(event.actor);
      initiative = payload.kind === "initiative";
      pending = [];
    } else if (event.type === EventType.ROLL && initiative) {
      pending.push(event);
    } else if (event.type === EventType.ROLL) {
      lines.push(`${stamp(event)}${rollLine(who(actor), payload)}`);
    } else if (event.type === EventType.INITIATIVE) {
      lines.push(...initiativeLines(pending, payload, system));
      initiative = false;
      pending = [];
    }
    if (!SILENT.has(event.type)) lines.push(`${stamp(event)}${said(sentence(event, system))}`);
  }
  return lines;
}

// A bout's events as an AOL-style chat transcript with the service's receipts, line for line
// what `referee export --chat` writes (referee.transcripts.chat_export): the host's line with
// its nonce for every roll, the referee's line for every consequence, [hh:mm:ss] UTC stamps.
// `referee judge --export` (or the "Judge a log" page) decides it back to the bout's verdict.

const REFEREE = "Referee";

function stamp(event) {
  const at = String(event.at || "");
  return at.length >= 19 && at[13] === ":" ? `[${at.slice(11, 19)}] ` : "";
}

function host(name, payload) {
  const dice = (payload.dice || []).map(String);
  const faces = (payload.faces || []).join(" ");
  const sides = dice.length ? dice[0].replace(/^d+/, "") : "?";
  const noun = dice.length === 1 ? "die" : "dice";
  const named = payload.stream && payload.stream !== `act:${name}` ? `, ${payload.stream}` : "";
  const receipt = payload.nonce === null || payload.nonce === undefined ? "" : ` (nonce ${payload.nonce}${named})`;
  return `OnlineHost: ${name} rolled ${dice.length} ${sides}-sided ${noun}: ${faces}${receipt}`;
}

function skill(payload) {
  const cs = (payload.stats || {}).cs;
  return Number.isInteger(cs) ? `CS ${cs}` : "CS hidden";
}

function announcement(events) {
  const fighters = events.filter((e) => e.type === "fighter_added").map((e) => e.payload);
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

const SAYINGS = {
  initiative: (p) => `Order: ${(p.order || []).join(", ")}`,
  outcome: (p) => (p.summary ? String(p.summary) : null),
  wound: (p) => `${p.target}: ${p.total} damage taken`,
  defeated: (p) => (p.defeated ? `${p.name} is defeated` : null),
  turn: (p) => `Round ${p.round}: ${p.fighter}'s turn`,
  voided: (p) => `voids events ${p.from}..${p.to}`,
  ended: (p) => `Result: ${p.winner || "no winner"} (${p.reason})`,
  cancelled: (p) => `the bout is called off (${p.reason})`,
  seed_rotated: (p) => `server seed ${Number(p.index ?? 1) - 1} revealed, nonces from 0; commitment ${p.next_commitment}`,
  closed: (p) => `bout closed, server seed ${p.server_seed}`,
};

function initiativeLines(rolls, payload) {
  const rounds = ((payload.detail || {}).rounds || []);
  const named = rounds.flatMap((r) => r.rolls || []);
  const lines = [];
  rolls.forEach((event, i) => {
    const record = named[i];
    if (!record) return;
    lines.push(`${stamp(event)}${host(String(record.name), event.payload || {})}`);
    lines.push(`${stamp(event)}${said(`${record.name}: ${record.roll} vs CS ${record.cs}, effect ${record.effect}`)}`);
  });
  return lines;
}

/** The transcript of a bout's events (as the log or the export has them), one string per line. */
export function boutAsChat(events) {
  const opened = events.find((e) => e.type === "bout_opened");
  const name = opened ? opened.payload.name : "";
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
    if (event.type === "action") {
      actor = String(event.actor);
      initiative = payload.kind === "initiative";
      pending = [];
    } else if (event.type === "roll" && initiative) {
      pending.push(event);
    } else if (event.type === "roll") {
      lines.push(`${stamp(event)}${host(actor === "referee" ? REFEREE : actor, payload)}`);
    } else if (event.type === "initiative") {
      lines.push(...initiativeLines(pending, payload));
      initiative = false;
      pending = [];
    }
    const saying = SAYINGS[event.type];
    const text = saying ? saying(payload) : null;
    if (text) lines.push(`${stamp(event)}${said(text)}`);
  }
  return lines;
}

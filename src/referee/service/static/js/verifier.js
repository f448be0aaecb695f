// Verify an export in the browser: the hash chain, the commitment(s), every roll's nonce and
// faces, the times, the bout's header and its close; and list the referee's rulings. A
// line-by-line port of src/referee/ledger/verify.py, chain.py, header.py and rulings.py
// (without the rules replay, which `referee verify` adds): the problems and their wording
// are the same, so the first problem names the same event ("event 7 (roll): ...") as the
// Python verifier. tests/vectors/ holds the exports both must judge alike; Node runs this
// very file on them (tests/test_ledger_vectors.py).

import { commitmentOf, eventHash, facesOf, hmacFor } from "./canon.js";
import { JsonSyntaxError, PyFloat, keysOf, parsePythonJson, pyRepr, sameJson } from "./pyjson.js";
import { checkClientSeed, openSeals, SEALED } from "./record.js";
import { EventType } from "./vocabulary.js";

export { pyRepr };

const GENESIS = "0".repeat(64);
const EVENT_KEYS = ["seq", "type", "actor", "at", "payload", "prev", "hash"];
const { SEED_ROTATED, CLOSED, ROLL, BOUT_OPENED: OPENED } = EventType;
const BOUT_FIELDS = ["id", "system", "name", "rules", "created_at", "status"];
const HEADER_FIELDS = ["id", "system", "name", "rules", "created_at"];
const LATER_FIELDS = ["id", "created_at"];
const MAX_DEPTH = 32;
const MAX_DICE_PER_ROLL = 1000;
const MAX_SIDES = 2 ** 32;
const HEX64 = /^[0-9a-f]{64}$/;
const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** One thing that does not check out, named by the event where it shows. */
export class Problem {
  constructor(seq, type, message, check = "rules") {
    this.seq = seq === undefined ? null : seq;
    this.type = type === undefined ? null : type;
    this.message = message;
    this.check = check;
  }

  toString() {
    if (this.seq === null) {
      const where = ["commitment", "faces"].includes(this.check) ? "fairness" : "export";
      return `${where}: ${this.message}`;
    }
    const type = this.type === null ? "None" : this.type;
    return `event ${pyValue(this.seq)} (${type}): ${this.message}`;
  }
}

function pyValue(value) {
  return typeof value === "string" ? value : pyRepr(value);
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);
const isHex64 = (v) => typeof v === "string" && HEX64.test(v);
const isWhole = (v) => Number.isInteger(v);
const isSeq = (v) => isWhole(v) && v >= 0;
const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const get = (obj, key) => (has(obj, key) ? obj[key] : null);
const typeName = (event) => (typeof event.type === "string" ? event.type : null);

export function isUtcTime(value) {
  if (typeof value !== "string" || !AT.test(value)) return false;
  const [y, mo, d, h, mi, s] = value.slice(0, 19).split(/[-T:]/).map(Number);
  const date = new Date(Date.UTC(y, mo - 1, d));
  return (
    y >= 1 &&
    mo >= 1 &&
    mo <= 12 &&
    date.getUTCDate() === d &&
    date.getUTCMonth() === mo - 1 &&
    h <= 23 &&
    mi <= 59 &&
    s <= 59
  );
}

/** A key that orders event times chronologically (the fraction has 1 to 6 digits). */
export function timeKey(at) {
  const fraction = at[19] === "." ? at.slice(20, -1) : "";
  return at.slice(0, 19) + fraction.padEnd(6, "0");
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a string is valid Unicode (no lone surrogate), as Python can encode it to UTF-8. */
function wellFormed(text) {
  return !LONE_SURROGATE.test(text);
}

function jsonProblem(value, where, depth = 0) {
  if (depth > MAX_DEPTH) return `JSON nested deeper than ${MAX_DEPTH} levels at ${where}`;
  if (typeof value === "string" && !wellFormed(value)) {
    return `text at ${where} has a lone surrogate (it is not valid Unicode)`;
  }
  if (value instanceof PyFloat || (typeof value === "number" && !Number.isInteger(value))) {
    return `float ${pyRepr(value)} at ${where}: events hold no floats (use integers)`;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = jsonProblem(value[i], `${where}[${i}]`, depth + 1);
      if (found) return found;
    }
  } else if (isObject(value)) {
    for (const key of keysOf(value)) {
      if (!wellFormed(key)) return `key ${pyRepr(key)} at ${where} has a lone surrogate (not valid Unicode)`;
      const found = jsonProblem(value[key], `${where}.${key}`, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

function formatMessage(event) {
  for (const key of EVENT_KEYS) {
    if (!has(event, key)) {
      return `missing key '${key}' (an event has ${EVENT_KEYS.join(", ")})`;
    }
  }
  const checks = [
    [isSeq(event.seq), "seq is not a whole number >= 0"],
    [typeof event.type === "string" && event.type !== "", "type is not a string"],
    [event.actor === null || typeof event.actor === "string", "actor is not a string"],
    [isUtcTime(event.at), `at ${pyRepr(event.at)} is not RFC 3339 UTC`],
    [isObject(event.payload), "payload is not an object"],
    [isHex64(event.prev), "prev is not 64 lowercase hex characters"],
    [isHex64(event.hash), "hash is not 64 lowercase hex characters"],
  ];
  for (const [ok, message] of checks) if (!ok) return message;
  return jsonProblem(event, "event");
}

/** The first problem of one event that should have number `seq` and link to `prev`. */
export async function checkEvent(event, position, seq, prev) {
  if (!isObject(event)) {
    return new Problem(seq, null, `entry ${position} is not a JSON object`, "format");
  }
  const name = typeof event.type === "string" ? event.type : null;
  const number = isSeq(event.seq) ? event.seq : seq;
  const message = formatMessage(event);
  if (message !== null) return new Problem(number, name, message, "format");
  if (event.seq !== seq) {
    const where = seq === 0 ? "the first event" : `event ${seq - 1}`;
    return new Problem(
      number,
      name,
      `seq ${number} follows ${where} (expected ${seq}: an event is missing or out of order)`,
      "chain",
    );
  }
  if (event.prev !== prev) {
    return new Problem(
      number,
      name,
      `prev ${event.prev.slice(0, 12)}... does not link to the previous event's hash ` +
        `${prev.slice(0, 12)}...`,
      "chain",
    );
  }
  if ((await eventHash(event)) !== event.hash) {
    return new Problem(number, name, "hash does not match the event (someone changed it)", "chain");
  }
  return null;
}

/** Check seq order, every prev link and every hash; one problem at most per event. */
export async function verifyChain(events) {
  const problems = [];
  let expected = 0;
  let link = GENESIS;
  for (let position = 0; position < events.length; position += 1) {
    const event = events[position];
    const problem = await checkEvent(event, position, expected, link);
    if (problem) problems.push(problem);
    if (isObject(event)) {
      expected = (isSeq(event.seq) ? event.seq : expected) + 1;
      link = isHex64(event.hash) ? event.hash : link;
    } else {
      expected += 1;
    }
  }
  return problems;
}

function fairnessProblem(message, check) {
  return new Problem(null, null, message, check);
}

async function seedsOf(fairness, events, partial) {
  const listed = [
    { commitment: get(fairness, "commitment"), serverSeed: get(fairness, "server_seed"), seq: null },
  ];
  const rotations = has(fairness, "rotations") ? fairness.rotations : [];
  if (!Array.isArray(rotations) || !rotations.every(isObject)) {
    return { listed, known: new Map(), problems: [fairnessProblem("rotations is not a list of objects", "format")] };
  }
  for (const r of rotations) {
    listed.push({ commitment: get(r, "commitment"), serverSeed: get(r, "server_seed"), seq: get(r, "seq") });
  }
  const problems = [];
  rotations.forEach((r, k) => {
    if (!sameJson(get(r, "index"), k + 1)) {
      problems.push(
        fairnessProblem(`fairness.rotations[${k}] has index ${pyRepr(get(r, "index"))} (expected ${k + 1})`, "commitment"),
      );
    }
  });
  const reveals = await revealsOf(events, listed, problems);
  for (let index = 0; index < listed.length; index += 1) {
    if (reveals.has(index)) continue;
    if (partial && listed[index].serverSeed === null) problems.push(...commitmentShape(listed[index]));
    else problems.push(...(await checkListedSeed(index, listed[index])));
  }
  const known = new Map();
  listed.forEach((s, i) => {
    if (isHex64(s.serverSeed)) known.set(i, s.serverSeed);
  });
  for (const [i, seed] of reveals) known.set(i, seed);
  return { listed, known, problems };
}

async function revealsOf(events, listed, problems) {
  const reveals = new Map();
  let index = 0;
  for (const event of events) {
    if (!isObject(event) || ![SEED_ROTATED, CLOSED].includes(event.type)) continue;
    const payload = isObject(event.payload) ? event.payload : {};
    const seq = get(event, "seq");
    if (event.type === CLOSED) {
      await closingReveal(payload, index, listed, reveals, problems, seq);
      continue;
    }
    const message = await rotationMessage(payload, index, listed, seq);
    if (message !== null) problems.push(new Problem(seq, SEED_ROTATED, message, "commitment"));
    if (isHex64(payload.server_seed)) reveals.set(index, payload.server_seed);
    index += 1;
  }
  if (index + 1 !== listed.length) {
    problems.push(
      fairnessProblem(
        `the events rotate the seed ${index} times but fairness lists ${listed.length} seeds`,
        "commitment",
      ),
    );
  }
  return reveals;
}

/** What is wrong with the export's listing of a seed its chain reveals (it must give it). */
function listedMessage(index, seed) {
  if (seed.serverSeed === null) {
    const where = index === 0 ? "fairness.server_seed" : `fairness.rotations[${index - 1}]`;
    return `${where} gives no server seed ${index}, but this event reveals it`;
  }
  return `the export's server seed ${index} differs from the one revealed here`;
}

async function closingReveal(payload, index, listed, reveals, problems, seq) {
  if (has(payload, "commitment") && index < listed.length && !sameJson(payload.commitment, listed[index].commitment)) {
    const message =
      `the close's commitment ${pyRepr(payload.commitment)} is not the commitment of seed ${index}, ` +
      `${pyRepr(listed[index].commitment)}`;
    problems.push(new Problem(seq, CLOSED, message, "commitment"));
  }
  const revealed = get(payload, "server_seed");
  if (revealed === null) return;
  let message;
  if (!isHex64(revealed)) {
    message = `revealed server seed ${pyRepr(revealed)} is not 64 lowercase hex characters`;
  } else if (index < listed.length && (await commitmentOf(revealed)) !== listed[index].commitment) {
    message = `revealed seed ${index} does not match its commitment ${pyRepr(listed[index].commitment)}`;
  } else if (index < listed.length && listed[index].serverSeed !== revealed) {
    message = listedMessage(index, listed[index]);
  } else {
    reveals.set(index, revealed);
    return;
  }
  problems.push(new Problem(seq, CLOSED, message, "commitment"));
}

async function rotationMessage(payload, index, listed, seq) {
  const revealed = get(payload, "server_seed");
  const following = get(payload, "next_commitment");
  if (!sameJson(get(payload, "index"), index + 1)) {
    return `index ${pyRepr(get(payload, "index"))} (expected ${index + 1})`;
  }
  if (!isHex64(revealed)) {
    return `revealed server seed ${pyRepr(revealed)} is not 64 lowercase hex characters`;
  }
  if (index < listed.length && (await commitmentOf(revealed)) !== listed[index].commitment) {
    return `revealed seed ${index} does not match its commitment ${pyRepr(listed[index].commitment)}`;
  }
  if (index < listed.length && listed[index].serverSeed !== revealed) return listedMessage(index, listed[index]);
  if (index + 1 >= listed.length) return `fairness.rotations lists no seed ${index + 1}`;
  if (following !== listed[index + 1].commitment) {
    return `next commitment ${pyRepr(following)} differs from fairness.rotations`;
  }
  if (!sameJson(listed[index + 1].seq, seq)) {
    return `fairness.rotations gives seq ${pyRepr(listed[index + 1].seq)} for this rotation`;
  }
  return null;
}

function commitmentShape(seed) {
  if (isHex64(seed.commitment)) return [];
  return [fairnessProblem(`commitment ${pyRepr(seed.commitment)} is not 64 hex characters`, "commitment")];
}

async function checkListedSeed(index, seed) {
  const name = index === 0 ? "server seed" : `server seed ${index}`;
  if (!isHex64(seed.commitment)) return commitmentShape(seed);
  if (seed.serverSeed === null) {
    return [fairnessProblem(`${name} is not revealed yet, so the faces cannot be checked yet`, "faces")];
  }
  if (!isHex64(seed.serverSeed)) {
    return [
      fairnessProblem(`${name} ${pyRepr(seed.serverSeed)} is not 64 lowercase hex characters`, "commitment"),
    ];
  }
  const actual = await commitmentOf(seed.serverSeed);
  if (actual !== seed.commitment) {
    return [
      fairnessProblem(
        `commitment ${seed.commitment} does not match the revealed ${name} (its commitment is ${actual})`,
        "commitment",
      ),
    ];
  }
  return [];
}

function dieName(name) {
  if (typeof name !== "string" || !/^d[0-9]+$/.test(name)) return false;
  const sides = Number(name.slice(1));
  return sides >= 1 && sides <= MAX_SIDES;
}

function rollShape(payload) {
  if (!isObject(payload)) return "roll payload is not an object";
  const nonce = get(payload, "nonce");
  const dice = get(payload, "dice");
  const faces = get(payload, "faces");
  if (!isWhole(nonce)) return `nonce ${pyRepr(nonce)} is not a whole number`;
  if (!Array.isArray(dice) || dice.length < 1 || dice.length > MAX_DICE_PER_ROLL) {
    return `dice ${pyRepr(dice)} is not a list of 1..${MAX_DICE_PER_ROLL} dice`;
  }
  for (const name of dice) if (!dieName(name)) return `die ${pyRepr(name)} is not a die name like 'd20'`;
  if (!Array.isArray(faces) || faces.length !== dice.length) {
    return `faces ${pyRepr(faces)} are not one face per die of ${pyRepr(dice)}`;
  }
  for (const face of faces) if (!isWhole(face)) return `face ${pyRepr(face)} is not a whole number`;
  return null;
}

/** [check, message] for the first thing wrong with one roll, or null; fills `row`. */
async function checkRoll(payload, nonce, mac, clientSeed, row, stream = null) {
  const shape = rollShape(payload);
  if (shape !== null) return ["format", shape];
  if (payload.nonce !== nonce) {
    if (stream !== null) {
      return [
        "nonce",
        `nonce ${pyRepr(payload.nonce)} (expected ${nonce}: nonces run from 0 per stream and seed, here ${pyRepr(stream)})`,
      ];
    }
    return ["nonce", `nonce ${pyRepr(payload.nonce)} (expected ${nonce}: nonces run from 0 per seed)`];
  }
  if (mac === null) return null;
  const sides = payload.dice.map((name) => Number(name.slice(1)));
  const expected = await facesOf(mac, clientSeed, nonce, sides, stream);
  row.expected = expected;
  for (let i = 0; i < sides.length; i += 1) {
    if (payload.faces[i] !== expected[i]) {
      const where = sides.length === 1 ? "" : ` at die ${i + 1} of ${sides.length} (d${sides[i]})`;
      return [
        "faces",
        `face ${pyRepr(payload.faces[i])} does not match the seed (expected ${expected[i]})${where}`,
      ];
    }
  }
  return null;
}

// ---- dice schemes and streams (src/referee/rng/streams.py) ------------------------------

const ONE_SEQUENCE = 1;
const STREAMS = 2;
const DICE_SCHEMES = [ONE_SEQUENCE, STREAMS];
const SCHEME_KEY = "dice_scheme";
const REFEREE_STREAM = "referee";
const MAX_STREAM = 64;

const actionStream = (fighter) => `act:${fighter}`;
const freeStream = (owner) => (owner === REFEREE_STREAM ? REFEREE_STREAM : `free:${owner}`);

/** [kind, owner] of a stream name, or null when it is none (act:NAME, free:NAME, referee). */
function ownerOf(stream) {
  if (stream === REFEREE_STREAM) return [REFEREE_STREAM, REFEREE_STREAM];
  const colon = stream.indexOf(":");
  if (colon < 0) return null;
  const kind = stream.slice(0, colon);
  const owner = stream.slice(colon + 1);
  if (!["act", "free"].includes(kind) || owner === "") return null;
  return [kind, owner];
}

/** Whether a stream is a name the HMAC message can carry: 1..64 code points of valid
 * Unicode without control characters. */
function streamName(stream) {
  if (!wellFormed(stream)) return false;
  const points = Array.from(stream, (c) => c.codePointAt(0));
  return points.length >= 1 && points.length <= MAX_STREAM && points.every((p) => p >= 32 && p !== 127);
}

/** The dice scheme of the events: the header's `dice_scheme` (absent: 1); a bare chain is of
 * scheme 2 when a roll names its stream. */
function diceScheme(events) {
  const first = events.length ? events[0] : null;
  if (isObject(first) && first.type === OPENED) {
    if (!isObject(first.payload)) return ONE_SEQUENCE;
    return has(first.payload, SCHEME_KEY) ? first.payload[SCHEME_KEY] : ONE_SEQUENCE;
  }
  for (const event of events) {
    if (isObject(event) && event.type === ROLL && isObject(event.payload) && has(event.payload, "stream")) {
      return STREAMS;
    }
  }
  return ONE_SEQUENCE;
}

function schemeOf(events) {
  const scheme = diceScheme(events);
  if (isWhole(scheme) && DICE_SCHEMES.includes(scheme)) return { scheme, problems: [] };
  const message =
    `${SCHEME_KEY} ${pyRepr(scheme)} is not a dice scheme this verifier knows ` +
    `(${DICE_SCHEMES.join(" or ")}); its rolls are checked as scheme 1`;
  const first = events[0];
  return { scheme: ONE_SEQUENCE, problems: [new Problem(get(first, "seq"), get(first, "type"), message, "stream")] };
}

/** Whose stream each roll of a bout must come from: the open action group, the fighters. */
class Owners {
  constructor() {
    this.actor = null;
    this.kind = null;
    this.fighters = new Set();
  }

  see(event) {
    const kind = get(event, "type");
    const payload = isObject(event.payload) ? event.payload : {};
    if (kind === "action") {
      this.actor = get(event, "actor");
      this.kind = get(payload, "kind");
      return;
    }
    if (get(event, "actor") !== "system") {
      this.actor = null;
      this.kind = null;
    }
    const name = get(payload, "name");
    if (kind === "fighter_added" && typeof name === "string") this.fighters.add(name);
    else if (kind === "fighter_removed" && typeof name === "string") this.fighters.delete(name);
  }

  problem(stream) {
    const { actor, kind } = this;
    if (typeof actor !== "string" || typeof kind !== "string") {
      return `stream ${pyRepr(stream)}: a roll outside any action (it follows the action it is for)`;
    }
    if (kind === "initiative") {
      const owner = ownerOf(stream);
      if (owner !== null && owner[0] === "act" && this.fighters.has(owner[1])) return null;
      return (
        `stream ${pyRepr(stream)} is not a fighter's own: initiative takes each fighter's die ` +
        "from its act:NAME stream"
      );
    }
    const expected = kind === "roll" ? freeStream(actor) : actionStream(actor);
    if (stream === expected) return null;
    const what = kind === "roll" ? "free roll" : pyRepr(kind);
    return `stream ${pyRepr(stream)} is not this roll's: ${actor}'s ${what} draws from ${pyRepr(expected)}`;
  }
}

/** [problem or null, stream or null] of a roll whose shape holds. */
function streamProblem(payload, scheme, owners) {
  const stream = has(payload, "stream") ? payload.stream : null;
  if (scheme === ONE_SEQUENCE) {
    if (has(payload, "stream")) {
      return [["stream", `stream ${pyRepr(stream)} in a bout of dice scheme 1 (one nonce sequence)`], null];
    }
    return [null, null];
  }
  if (typeof stream !== "string") {
    return [["stream", `stream ${pyRepr(stream)}: every roll of a bout with dice streams names its stream`], null];
  }
  if (!streamName(stream)) {
    const message =
      `stream ${pyRepr(stream)} is not a stream name (1 to ${MAX_STREAM} characters of valid ` +
      "Unicode, no control characters)";
    return [["stream", message], null];
  }
  const problem = owners === null ? null : owners.problem(stream);
  return [problem === null ? null : ["stream", problem], stream];
}

async function checkRolls(events, clientSeed, known, scheme, { owners: withOwners }) {
  if (typeof clientSeed !== "string") {
    return {
      problems: [fairnessProblem(`client seed ${pyRepr(clientSeed)} is not a string`, "format")],
      rows: [],
      unchecked: 0,
    };
  }
  const macs = new Map();
  for (const [i, seed] of known) macs.set(i, await hmacFor(seed));
  const problems = [];
  const rows = [];
  let index = 0;
  let unchecked = 0;
  let nonces = new Map();
  const who = new Owners();
  for (const event of events) {
    if (!isObject(event)) continue;
    if (event.type === SEED_ROTATED) {
      index += 1;
      nonces = new Map();
    }
    if (event.type !== ROLL) {
      who.see(event);
      continue;
    }
    const payload = event.payload;
    const shape = rollShape(payload);
    let found = shape === null ? null : ["format", shape];
    let stream = null;
    if (found === null) [found, stream] = streamProblem(payload, scheme, withOwners ? who : null);
    const nonce = nonces.has(stream) ? nonces.get(stream) : 0;
    const row = { seq: get(event, "seq"), seed: index, stream, nonce, payload, expected: null, ok: true };
    if (!macs.has(index)) unchecked += 1;
    if (found === null) found = await checkRoll(payload, nonce, macs.get(index) || null, clientSeed, row, stream);
    if (found !== null) {
      row.ok = false;
      row.problem = found[1];
      problems.push(new Problem(get(event, "seq"), ROLL, found[1], found[0]));
    }
    rows.push(row);
    nonces.set(stream, nonce + 1);
  }
  return { problems, rows, unchecked };
}

/** Sort key: problems of the export as a whole first, then by where the event stands. */
function fileOrder(events) {
  const positions = new Map();
  events.forEach((event, position) => {
    if (isObject(event) && isWhole(event.seq) && !positions.has(event.seq)) {
      positions.set(event.seq, position);
    }
  });
  return (p) => {
    if (p.seq === null) return [0, 0];
    if (!isWhole(p.seq)) return [2, 0];
    return [1, positions.has(p.seq) ? positions.get(p.seq) : p.seq];
  };
}

// ---- header.py: the bout's header, the close, the order of times -----------------------

function seqOr(event, fallback) {
  return isSeq(event.seq) ? event.seq : fallback;
}

function checkHeader(bout, events, fairness) {
  const problems = keysOf(bout)
    .filter((key) => !BOUT_FIELDS.includes(key))
    .map(
      (key) =>
        new Problem(null, null, `bout.${key} is not covered by the chain (a bout has ${BOUT_FIELDS.join(", ")})`, "header"),
    );
  if (!events.length || !isObject(events[0])) return { problems, skipped: [] };
  const first = events[0];
  const seq = seqOr(first, 0);
  const kind = typeName(first);
  if (kind !== OPENED) {
    const message = `the chain does not open with ${OPENED}, so the bout's fields are outside it`;
    return { problems: [...problems, new Problem(seq, kind, message, "header")], skipped: [] };
  }
  const payload = first.payload;
  if (!isObject(payload)) return { problems, skipped: [] };
  const unchained = [];
  for (const key of HEADER_FIELDS) {
    let message;
    if (!has(payload, key)) {
      if (LATER_FIELDS.includes(key)) {
        unchained.push(key);
        continue;
      }
      message = `the first event carries no ${key} (the bout's header)`;
    } else if (!has(bout, key)) {
      message = `bout.${key} is missing (the chain opens with ${pyRepr(payload[key])})`;
    } else if (!sameJson(bout[key], payload[key])) {
      message = `bout.${key} ${pyRepr(bout[key])} differs from the ${key} ${pyRepr(payload[key])} the chain opens with`;
    } else {
      continue;
    }
    problems.push(new Problem(seq, kind, message, "header"));
  }
  if (has(payload, "commitment") && !sameJson(payload.commitment, get(fairness, "commitment"))) {
    const message =
      `fairness.commitment ${pyRepr(get(fairness, "commitment"))} differs from the commitment ` +
      `${pyRepr(payload.commitment)} the chain opens with`;
    problems.push(new Problem(seq, kind, message, "commitment"));
  }
  const skipped = [];
  if (unchained.length) {
    skipped.push(
      `header: the first event carries no ${unchained.join(" and ")} (an export made before the header ` +
        `was chained), so bout.${unchained.join(" and bout.")} are not covered by the chain`,
    );
  }
  return { problems, skipped };
}

function checkEnd(bout, events, partial) {
  if (!events.length) return [new Problem(null, null, "the export has no events", "complete")];
  const problems = [];
  const close = events.findIndex((e) => isObject(e) && e.type === CLOSED);
  if (close >= 0 && close + 1 < events.length) {
    const after = events[close + 1];
    const where = isObject(after) ? seqOr(after, null) : null;
    const kind = isObject(after) ? typeName(after) : null;
    problems.push(new Problem(where, kind, "an event after the close (nothing may follow it)", "complete"));
  }
  const last = events[events.length - 1];
  const closed = isObject(last) && last.type === CLOSED;
  const status = get(bout, "status");
  if (closed && has(bout, "status") && status !== "closed") {
    problems.push(new Problem(null, null, `bout.status ${pyRepr(status)} but the chain ends with the close`, "complete"));
  }
  if (closed) return problems;
  const seq = isObject(last) ? seqOr(last, null) : null;
  const kind = isObject(last) ? typeName(last) : null;
  if (status === "closed") {
    problems.push(
      new Problem(seq, kind, "bout.status says closed but the chain ends here without the close: the export was cut short", "complete"),
    );
  } else if (!partial) {
    problems.push(
      new Problem(
        seq,
        kind,
        "the export ends here without the close, so it is partial (the bout is not closed yet, " +
          "or the export was cut short); --partial checks it up to here",
        "complete",
      ),
    );
  }
  return problems;
}

function checkTimes(events) {
  const problems = [];
  let before = null;
  for (const event of events) {
    if (!isObject(event) || !isUtcTime(event.at)) continue;
    if (before !== null && timeKey(event.at) < timeKey(before)) {
      const message = `at ${pyRepr(event.at)} is before the previous event's ${pyRepr(before)} (times must not go backwards)`;
      problems.push(new Problem(get(event, "seq"), typeName(event), message, "time"));
    }
    before = event.at;
  }
  return problems;
}

// ---- rulings.py: what the referee decided by hand ----------------------------------------

const CHOSEN_OPTIONS = ["modifier", "rear", "defend", "defense", "range", "aim", "mounted"];
const isText = (v) => typeof v === "string" && v !== "";
// Control characters and lone surrogates, shown as \\uXXXX (rulings.py: _UNSAFE, shown).
const UNSAFE = /[\x00-\x1f\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A value as a ruling shows it (rulings.py: shown): text with unsafe characters escaped. */
function shown(value) {
  if (typeof value !== "string") return pyRepr(value);
  return value.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const RULING_TYPES = {
  ended(p) {
    const reason = isText(get(p, "reason")) ? ` (${shown(p.reason)})` : "";
    if (get(p, "winner") === null) return `the referee ended the bout without a winner${reason}`;
    return `the referee declared side ${pyRepr(p.winner)} the winner${reason}`;
  },
  overridden(p) {
    const wounds = Array.isArray(get(p, "wounds")) ? p.wounds : [];
    const given = wounds
      .filter(isObject)
      .map((w) => `${shown(get(w, "target"))} ${shown(get(w, "amount"))}`)
      .join(", ");
    const note = isText(get(p, "note")) ? `: ${shown(p.note)}` : "";
    return `the referee replaced the wounds of event ${pyRepr(get(p, "of"))} with ${given || "none"}${note}`;
  },
  voided: (p) => `the referee voided events ${pyRepr(get(p, "from"))} to ${pyRepr(get(p, "to"))}`,
  action(p) {
    const options = isObject(get(p, "options")) ? p.options : {};
    const chosen = CHOSEN_OPTIONS.filter((k) => has(options, k)).map((k) => `${k} ${pyRepr(options[k])}`);
    if (get(p, "by") !== "referee" || !chosen.length) return null;
    return `the referee set ${chosen.join(", ")} for this ${pyRepr(get(p, "kind"))}`;
  },
  fighter_updated(p) {
    const stats = isObject(get(p, "stats")) ? p.stats : {};
    const names = Object.keys(stats).sort(codePointOrder);
    const parts = names.length ? [`stats ${names.map(shown).join(", ")}`] : [];
    if (has(p, "wounds")) parts.push(`wounds to ${pyRepr(p.wounds)}`);
    return `the referee changed ${pyRepr(get(p, "name"))}: ${parts.join("; ") || "nothing"}`;
  },
  stat: (p) => `the referee set ${pyRepr(get(p, "key"))} of ${pyRepr(get(p, "target"))} to ${pyRepr(get(p, "value"))}`,
  skipped: (p) => `the referee skipped the turn of ${pyRepr(get(p, "name"))}`,
  cancelled: () => "the referee called the bout off",
};

/** Python's str() of a JSON value (a string as itself, anything else as its repr). */
function pyStrOf(value) {
  return typeof value === "string" ? value : pyRepr(value);
}

function codePointOrder(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

// Who rotates a seed (rulings.py: ROTATED_BY).
const ROTATED_BY = { referee: "the referee", system: "the service (its own rotation)" };

function rotated(event, p, lastRoll) {
  const actor = get(event, "actor");
  const who = typeof actor === "string" && has(ROTATED_BY, actor) ? ROTATED_BY[actor] : pyRepr(actor);
  const after = lastRoll !== null && lastRoll !== undefined ? `after the roll at event ${shown(lastRoll)}` : "";
  return `${who} rotated the server seed to seed ${shown(get(p, "index"))} at ${shown(get(event, "at"))}, ${after || "before any roll"}`;
}

/** Every ruling of the referee in the chain, and every seed rotation: {seq, type, text};
 * String() reads as Python's. */
export function rulingsOf(events) {
  const found = [];
  const add = (event, kind, said) => {
    const seq = get(event, "seq");
    found.push({ seq, type: kind, text: said, toString: () => `event ${pyStrOf(seq)} (${kind}): ${said}` });
  };
  let lastRoll = null;
  for (const event of events) {
    if (!isObject(event)) continue;
    const kind = event.type;
    if (kind === "roll") {
      lastRoll = get(event, "seq");
      continue;
    }
    if (kind === "seed_rotated" && isObject(event.payload)) {
      add(event, kind, rotated(event, event.payload, lastRoll));
      continue;
    }
    if (get(event, "actor") !== "referee" && kind !== "action") continue;
    const describe = typeof kind === "string" && has(RULING_TYPES, kind) ? RULING_TYPES[kind] : null;
    if (describe === null || !isObject(event.payload)) continue;
    const said = describe(event.payload);
    if (said !== null) add(event, kind, said);
  }
  return found;
}

/** Raised for a document that is not an export at all. */
export class NotAnExport extends Error {}

function shapeOf(doc) {
  if (!isObject(doc)) {
    const kind = Array.isArray(doc) ? "list" : doc === null ? "NoneType" : typeof doc;
    throw new NotAnExport(`an export is a JSON object, got ${kind}`);
  }
  for (const [key, kind, test] of [
    ["bout", "dict", isObject],
    ["fairness", "dict", isObject],
    ["events", "list", Array.isArray],
  ]) {
    if (!test(doc[key])) {
      throw new NotAnExport(
        `not a referee export: '${key}' is missing or not a ${kind} (expected bout, fairness and events)`,
      );
    }
  }
  return [doc.events, doc.fairness];
}

/**
 * Check a bout's export completely. Returns {ok, verdict, complete, last, problems, first,
 * events, rolls, seeds, checks, skipped, rulings, rows}; `rows` has one entry per roll with
 * the recomputed faces. `partial` accepts an export that does not end with the close.
 */
export async function verifyExport(doc, { partial = false } = {}) {
  const [chainEvents, fairness] = shapeOf(doc);
  const header = checkHeader(doc.bout, chainEvents, fairness);
  const end = checkEnd(doc.bout, chainEvents, partial);
  const problems = await verifyChain(chainEvents);
  const seeds = await seedsOf(fairness, chainEvents, partial);
  const scheme = schemeOf(chainEvents);
  // Every sealed event the export opens, opened (record.js); the client seed the chain holds.
  const sealed = await openSeals(doc, chainEvents, Problem, jsonProblem);
  const events = sealed.events;
  const seed = checkClientSeed(events, fairness, Problem);
  const rolls = await checkRolls(events, seed.clientSeed, seeds.known, scheme.scheme, { owners: true });
  problems.push(...seeds.problems, ...scheme.problems, ...sealed.problems, ...seed.problems);
  problems.push(...rolls.problems, ...checkTimes(events), ...header.problems);
  problems.push(...end);
  const skipped = [...header.skipped];
  if (partial && rolls.unchecked) {
    skipped.push(`faces: ${rolls.unchecked} roll(s) under a server seed not revealed yet are not checked`);
  }
  skipped.push(...seed.skipped);
  skipped.push("rules: replayed by `referee verify`, not in the browser");
  const key = fileOrder(events);
  const ordered = problems
    .map((p, i) => [key(p), i, p])
    .sort((a, b) => a[0][0] - b[0][0] || a[0][1] - b[0][1] || a[1] - b[1])
    .map((entry) => entry[2]);
  const last = events.length && isObject(events[events.length - 1]) ? events[events.length - 1] : {};
  const complete = events.length > 0 && last.type === CLOSED;
  return {
    ok: ordered.length === 0,
    verdict: ordered.length ? "rejected" : complete ? "verified" : "partial",
    complete,
    last: { seq: get(last, "seq"), type: get(last, "type") },
    problems: ordered,
    first: ordered.length ? ordered[0] : null,
    events: events.length,
    rolls: rolls.rows.length,
    seeds: seeds.listed.length,
    checks: [
      "chain",
      "commitment",
      "faces",
      "nonce",
      "time",
      ...(scheme.scheme === STREAMS ? ["stream"] : []),
      "header",
      "complete",
      ...(seed.skipped.length ? [] : ["client seed"]),
      ...(events.some((e) => isObject(e) && has(e, SEALED)) ? ["seal"] : []),
    ],
    skipped,
    unopened: sealed.unopened,
    rulings: rulingsOf(events),
    rows: rolls.rows,
  };
}

/** Raised for an export this verifier cannot judge exactly as Python does. */
export class CannotVerifyHere extends Error {}

/**
 * Read an export's JSON text as Python does and verify it. Throws NotAnExport for text that
 * is not an export, CannotVerifyHere when it holds integers beyond 2^53 (JavaScript cannot
 * hold them exactly, so it says so instead of giving another verdict than `referee verify`).
 */
export async function verifyExportText(text, options = {}) {
  let parsed;
  try {
    parsed = parsePythonJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new NotAnExport(`the export is not JSON: ${err.message}`);
    throw err;
  }
  if (parsed.unsafeIntegers) {
    throw new CannotVerifyHere(
      `this export holds ${parsed.unsafeIntegers} integer(s) beyond 2^53, which a browser cannot ` +
        "read exactly, so it cannot be verified here: check it with `referee verify FILE`",
    );
  }
  return verifyExport(parsed.value, options);
}

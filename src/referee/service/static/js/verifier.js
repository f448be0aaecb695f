// Verify an export in the browser: the hash chain, the commitment(s), every roll's nonce and
// faces. A line-by-line port of src/referee/ledger/verify.py and chain.py (without the rules
// replay, which `referee verify` adds): the problems and their wording are the same, so the
// first problem names the same event ("event 7 (roll): ...") as the Python verifier.

import { commitmentOf, eventHash, facesOf, hmacFor } from "./canon.js";

const GENESIS = "0".repeat(64);
const EVENT_KEYS = ["seq", "type", "actor", "at", "payload", "prev", "hash"];
const SEED_ROTATED = "seed_rotated";
const CLOSED = "closed";
const ROLL = "roll";
const MAX_DEPTH = 32;
const MAX_DICE_PER_ROLL = 1000;
const MAX_SIDES = 2 ** 32;
const HEX64 = /^[0-9a-f]{64}$/;
const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** Python's repr() of a JSON value, so that messages read exactly as the CLI's. */
export function pyRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return pyStr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  return `{${Object.keys(value)
    .map((k) => `${pyStr(k)}: ${pyRepr(value[k])}`)
    .join(", ")}}`;
}

function pyStr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return quote + out + quote;
}

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

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isHex64 = (v) => typeof v === "string" && HEX64.test(v);
const isSeq = (v) => Number.isInteger(v) && v >= 0;
const get = (obj, key) => (obj[key] === undefined ? null : obj[key]);

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
    s <= 61
  );
}

function jsonProblem(value, where, depth = 0) {
  if (depth > MAX_DEPTH) return `JSON nested deeper than ${MAX_DEPTH} levels at ${where}`;
  if (typeof value === "number" && !Number.isInteger(value)) {
    return `float ${pyRepr(value)} at ${where}: events hold no floats (use integers)`;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = jsonProblem(value[i], `${where}[${i}]`, depth + 1);
      if (found) return found;
    }
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const found = jsonProblem(value[key], `${where}.${key}`, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

function formatMessage(event) {
  for (const key of EVENT_KEYS) {
    if (!(key in event)) {
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

async function seedsOf(fairness, events) {
  const listed = [
    { commitment: get(fairness, "commitment"), serverSeed: get(fairness, "server_seed"), seq: null },
  ];
  const rotations = fairness.rotations === undefined ? [] : fairness.rotations;
  if (!Array.isArray(rotations) || !rotations.every(isObject)) {
    return { listed, known: new Map(), problems: [fairnessProblem("rotations is not a list of objects", "format")] };
  }
  for (const r of rotations) {
    listed.push({ commitment: get(r, "commitment"), serverSeed: get(r, "server_seed"), seq: get(r, "seq") });
  }
  const problems = [];
  const reveals = await revealsOf(events, listed, problems);
  for (let index = 0; index < listed.length; index += 1) {
    if (!reveals.has(index)) problems.push(...(await checkListedSeed(index, listed[index])));
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

async function closingReveal(payload, index, listed, reveals, problems, seq) {
  const revealed = get(payload, "server_seed");
  if (revealed === null) return;
  let message;
  if (!isHex64(revealed)) {
    message = `revealed server seed ${pyRepr(revealed)} is not 64 lowercase hex characters`;
  } else if (index < listed.length && (await commitmentOf(revealed)) !== listed[index].commitment) {
    message = `revealed seed ${index} does not match its commitment ${pyRepr(listed[index].commitment)}`;
  } else if (index < listed.length && ![null, revealed].includes(listed[index].serverSeed)) {
    message = `the export's server seed ${index} differs from the one revealed here`;
  } else {
    reveals.set(index, revealed);
    return;
  }
  problems.push(new Problem(seq, CLOSED, message, "commitment"));
}

async function rotationMessage(payload, index, listed, seq) {
  const revealed = get(payload, "server_seed");
  const following = get(payload, "next_commitment");
  if (get(payload, "index") !== index + 1) {
    return `index ${pyRepr(get(payload, "index"))} (expected ${index + 1})`;
  }
  if (!isHex64(revealed)) {
    return `revealed server seed ${pyRepr(revealed)} is not 64 lowercase hex characters`;
  }
  if (index < listed.length && (await commitmentOf(revealed)) !== listed[index].commitment) {
    return `revealed seed ${index} does not match its commitment ${pyRepr(listed[index].commitment)}`;
  }
  if (index < listed.length && ![null, revealed].includes(listed[index].serverSeed)) {
    return `the export's server seed ${index} differs from the one revealed here`;
  }
  if (index + 1 >= listed.length) return `fairness.rotations lists no seed ${index + 1}`;
  if (following !== listed[index + 1].commitment) {
    return `next commitment ${pyRepr(following)} differs from fairness.rotations`;
  }
  if (listed[index + 1].seq !== seq) {
    return `fairness.rotations gives seq ${pyRepr(listed[index + 1].seq)} for this rotation`;
  }
  return null;
}

async function checkListedSeed(index, seed) {
  const name = index === 0 ? "server seed" : `server seed ${index}`;
  if (!isHex64(seed.commitment)) {
    return [fairnessProblem(`commitment ${pyRepr(seed.commitment)} is not 64 hex characters`, "commitment")];
  }
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
  if (!Number.isInteger(nonce)) return `nonce ${pyRepr(nonce)} is not a whole number`;
  if (!Array.isArray(dice) || dice.length < 1 || dice.length > MAX_DICE_PER_ROLL) {
    return `dice ${pyRepr(dice)} is not a list of 1..${MAX_DICE_PER_ROLL} dice`;
  }
  for (const name of dice) if (!dieName(name)) return `die ${pyRepr(name)} is not a die name like 'd20'`;
  if (!Array.isArray(faces) || faces.length !== dice.length) {
    return `faces ${pyRepr(faces)} are not one face per die of ${pyRepr(dice)}`;
  }
  return null;
}

/** [check, message] for the first thing wrong with one roll, or null; fills `row`. */
async function checkRoll(payload, nonce, mac, clientSeed, row) {
  const shape = rollShape(payload);
  if (shape !== null) return ["format", shape];
  if (payload.nonce !== nonce) {
    return ["nonce", `nonce ${pyRepr(payload.nonce)} (expected ${nonce}: nonces run from 0 per seed)`];
  }
  if (mac === null) return null;
  const sides = payload.dice.map((name) => Number(name.slice(1)));
  const expected = await facesOf(mac, clientSeed, nonce, sides);
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

async function checkRolls(events, clientSeed, known) {
  if (typeof clientSeed !== "string") {
    return { problems: [fairnessProblem(`client seed ${pyRepr(clientSeed)} is not a string`, "format")], rows: [] };
  }
  const macs = new Map();
  for (const [i, seed] of known) macs.set(i, await hmacFor(seed));
  const problems = [];
  const rows = [];
  let index = 0;
  let nonce = 0;
  for (const event of events) {
    if (!isObject(event)) continue;
    if (event.type === SEED_ROTATED) {
      index += 1;
      nonce = 0;
    } else if (event.type === ROLL) {
      const payload = event.payload;
      const row = { seq: get(event, "seq"), seed: index, nonce, payload, expected: null, ok: true };
      const found = await checkRoll(payload, nonce, macs.get(index) || null, clientSeed, row);
      if (found !== null) {
        row.ok = false;
        row.problem = found[1];
        problems.push(new Problem(get(event, "seq"), ROLL, found[1], found[0]));
      }
      rows.push(row);
      nonce += 1;
    }
  }
  return { problems, rows };
}

function fileOrder(events) {
  const positions = new Map();
  events.forEach((event, position) => {
    if (isObject(event) && Number.isInteger(event.seq) && !positions.has(event.seq)) {
      positions.set(event.seq, position);
    }
  });
  return (p) => (p.seq === null ? [0, 0] : [1, positions.has(p.seq) ? positions.get(p.seq) : p.seq]);
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
 * Check an export completely. Returns {ok, problems, first, events, rolls, seeds, checks,
 * skipped, rows}; `rows` has one entry per roll with the recomputed faces.
 */
export async function verifyExport(doc) {
  const [events, fairness] = shapeOf(doc);
  const problems = await verifyChain(events);
  const seeds = await seedsOf(fairness, events);
  const rolls = await checkRolls(events, fairness.client_seed === undefined ? null : fairness.client_seed, seeds.known);
  problems.push(...seeds.problems, ...rolls.problems);
  const key = fileOrder(events);
  const ordered = problems
    .map((p, i) => [key(p), i, p])
    .sort((a, b) => a[0][0] - b[0][0] || a[0][1] - b[0][1] || a[1] - b[1])
    .map((entry) => entry[2]);
  return {
    ok: ordered.length === 0,
    problems: ordered,
    first: ordered.length ? ordered[0] : null,
    events: events.length,
    rolls: rolls.rows.length,
    seeds: seeds.listed.length,
    checks: ["chain", "commitment", "faces", "nonce"],
    skipped: ["rules: replayed by `referee verify`, not in the browser"],
    rows: rolls.rows,
  };
}

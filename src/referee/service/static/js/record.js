// The whole record (ledger 2): the client seed in the chain, hidden values sealed. A port of
// src/referee/ledger/record.py and seal.py: the same checks, the same words, so that both
// verifiers give the same problems in the same order (tests/test_ledger_vectors.py).

import { canonicalBytes, sha256, toHex } from "./canon.js";
import { keysOf, PyFloat, pyRepr, sameJson } from "./pyjson.js";
import { EventType } from "./vocabulary.js";

const { BOUT_OPENED: OPENED, FIGHTER_ADDED: ADDED, CLIENT_SEED_FIXED: FIXED, ROLL, CLOSED } = EventType;

export const SEALED = "sealed";
export const OPENINGS = "openings";
const HIDDEN = "hidden";
const SAID = "summary";
const WHOLE_RECORD = 2;
const LEDGER_FORMATS = [1, WHOLE_RECORD];
const SALT = /^[0-9a-f]{32}$/;
const HEX64 = /^[0-9a-f]{64}$/;

export const UNCHAINED_SEED =
  "client seed: not in this export's chain (a bout made before the client seed was chained), " +
  "so fairness.client_seed is held to nothing but the faces";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);
const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const get = (obj, key) => (isObject(obj) && has(obj, key) ? obj[key] : null);

function where(event) {
  if (!isObject(event)) return [null, null];
  return [get(event, "seq"), typeof event.type === "string" ? event.type : null];
}

/** The ledger format a bout's header names (1 when it names none). */
export function ledgerFormat(events) {
  const first = events.length ? events[0] : null;
  if (!isObject(first) || first.type !== OPENED || !isObject(first.payload)) return 1;
  return has(first.payload, "ledger") ? first.payload.ledger : 1;
}

function diceSchemeOf(events) {
  const first = events[0];
  if (!isObject(first) || first.type !== OPENED || !isObject(first.payload)) return 1;
  return has(first.payload, "dice_scheme") ? first.payload.dice_scheme : 1;
}

/**
 * {clientSeed, problems, skipped}: the client seed the faces are made from (the chain's in a
 * ledger-2 bout), and what is wrong with the export's client seed and dice scheme.
 * `Problem` is the verifier's class (passed in: verifier.js imports this module).
 */
export function checkClientSeed(events, fairness, Problem) {
  const given = get(fairness, "client_seed");
  const found = ledgerFormat(events);
  if (sameJson(found, 1)) return { clientSeed: given, problems: [], skipped: [UNCHAINED_SEED] };
  const [seq, kind] = events.length ? where(events[0]) : [null, null];
  if (!sameJson(found, WHOLE_RECORD)) {
    const message =
      `ledger ${pyRepr(found)} is not a ledger format this verifier knows ` +
      `(${LEDGER_FORMATS.join(" or ")}); its client seed is taken from fairness`;
    return { clientSeed: given, problems: [new Problem(seq, kind, message, "client seed")], skipped: [] };
  }
  const problems = [];
  if (has(fairness, "dice_scheme") && !sameJson(fairness.dice_scheme, diceSchemeOf(events))) {
    const message =
      `fairness.dice_scheme ${pyRepr(fairness.dice_scheme)} differs from the dice scheme ` +
      `${pyRepr(diceSchemeOf(events))} the chain opens with`;
    problems.push(new Problem(seq, kind, message, "client seed"));
  }
  const composed = get(events[0].payload, "client_seed");
  if (typeof composed !== "string") {
    const message = "the header carries no client seed (the referee's part), as a ledger-2 bout's does";
    problems.push(new Problem(seq, kind, message, "client seed"));
    return { clientSeed: given, problems, skipped: [] };
  }
  const { chained, fixedAt } = follow(events, composed, problems, Problem);
  if (!sameJson(given, chained)) {
    const [at, what] = where(fixedAt !== null ? fixedAt : events[0]);
    const verb = fixedAt !== null ? "fixes here" : "opens with (it fixes none)";
    const message =
      `fairness.client_seed ${pyRepr(given)} differs from the client seed ${pyRepr(chained)} ` +
      `the chain ${verb}`;
    problems.push(new Problem(at, what, message, "client seed"));
  }
  return { clientSeed: chained, problems, skipped: [] };
}

function follow(events, start, problems, Problem) {
  let composed = start;
  let fixedAt = null;
  let fixed = null;
  let rolled = false;
  for (const event of events.slice(1)) {
    if (!isObject(event)) continue;
    const kind = event.type;
    const [seq, name] = where(event);
    const payload = isObject(event.payload) ? event.payload : {};
    if (kind === ADDED) {
      if (!has(payload, "seed_part")) continue;
      const part = payload.seed_part;
      if (fixedAt !== null) {
        const message = `a client-seed part joins after the client seed was fixed at event ${pyRepr(get(fixedAt, "seq"))}`;
        problems.push(new Problem(seq, name, message, "client seed"));
      } else if (typeof part !== "string" || part === "" || part.includes(":")) {
        problems.push(new Problem(seq, name, `seed_part ${pyRepr(part)} is not a client-seed part (text without ':')`, "client seed"));
      } else {
        composed = `${composed}:${part}`;
      }
    } else if (kind === FIXED) {
      const value = get(payload, "client_seed");
      if (fixedAt !== null) {
        const message = `the client seed is fixed again (it was at event ${pyRepr(get(fixedAt, "seq"))})`;
        problems.push(new Problem(seq, name, message, "client seed"));
      } else {
        if (!sameJson(value, composed)) {
          const message = `it fixes the client seed ${pyRepr(value)}, but the chain's parts make ${pyRepr(composed)}`;
          problems.push(new Problem(seq, name, message, "client seed"));
        }
        fixedAt = event;
        fixed = composed;
      }
    } else if (kind === ROLL && fixedAt === null && !rolled) {
      rolled = true;
      const message =
        "a roll before the client seed was fixed (a ledger-2 bout fixes it with a " +
        "client_seed_fixed event first)";
      problems.push(new Problem(seq, name, message, "client seed"));
    }
  }
  return { chained: fixed !== null ? fixed : composed, fixedAt };
}

/** The seal of a whole payload with its salt (seal.py: seal_of). */
export async function sealOf(payload, salt) {
  return toHex(await sha256(canonicalBytes({ payload, salt })));
}

/** Where the public part of a sealed event says what its whole payload does not (seal.py). */
export function disagreement(pub, whole, path = "payload") {
  if (pub === HIDDEN) return null;
  if (isObject(pub) && isObject(whole)) {
    for (const key of keysOf(pub)) {
      if (path === "payload" && key === SAID) continue;
      if (!has(whole, key)) return `its public part has ${path}.${key}, its opening has none`;
      const found = disagreement(pub[key], whole[key], `${path}.${key}`);
      if (found !== null) return found;
    }
    return null;
  }
  if (Array.isArray(pub) && Array.isArray(whole) && pub.length === whole.length) {
    for (let i = 0; i < pub.length; i += 1) {
      const found = disagreement(pub[i], whole[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (sameJson(pub, whole)) return null;
  return `its public part says ${path} is ${pyRepr(pub)}, its opening ${pyRepr(whole)}`;
}

/** What is wrong with an opening of a sealed event, or null (seal.py: check_opening). */
export async function checkOpening(event, found, jsonProblem) {
  const keys = isObject(found) ? keysOf(found).sort() : null;
  if (keys === null || keys.length !== 2 || keys[0] !== "payload" || keys[1] !== "salt") {
    return "its opening is not an object of salt and payload";
  }
  if (typeof found.salt !== "string" || !SALT.test(found.salt)) {
    return `its opening's salt ${pyRepr(found.salt)} is not 32 lowercase hex characters`;
  }
  if (!isObject(found.payload)) return "its opening's payload is not an object";
  const bad = jsonProblem(found, "opening");
  if (bad !== null) return `its opening cannot be hashed: ${bad}`;
  const seal = await sealOf(found.payload, found.salt);
  const given = get(event, SEALED);
  if (typeof given !== "string" || !HEX64.test(given) || seal !== given) {
    return "the opening does not match its seal (a hidden value was changed)";
  }
  return disagreement(event.payload, found.payload);
}

/** {events, problems, unopened}: the events with each sealed one the export opens opened
 * (record.py: open_seals); `Problem` and `jsonProblem` are the verifier's. */
export async function openSeals(doc, events, Problem, jsonProblem) {
  const given = has(doc, OPENINGS) ? doc[OPENINGS] : {};
  if (!isObject(given)) {
    return { events, problems: [new Problem(null, null, `${OPENINGS} is not an object`, "seal")], unopened: 0 };
  }
  const problems = [];
  const out = [];
  const used = new Set();
  const unopened = [];
  for (const event of events) {
    if (!isObject(event)) {
      out.push(event);
      continue;
    }
    const [seq, kind] = where(event);
    const key = Number.isInteger(seq) ? String(seq) : null;
    const held = key !== null && has(given, key);
    if (held) used.add(key);
    if (!has(event, SEALED)) {
      if (held) problems.push(new Problem(seq, kind, "an opening for an event not sealed", "seal"));
      out.push(event);
      continue;
    }
    if (!held) {
      unopened.push(event);
      out.push(event);
      continue;
    }
    const message = await checkOpening(event, given[key], jsonProblem);
    if (message !== null) {
      problems.push(new Problem(seq, kind, message, "seal"));
      out.push(event);
    } else {
      out.push({ ...event, payload: given[key].payload });
    }
  }
  const left = keysOf(given)
    .filter((k) => !used.has(k))
    .sort(codeUnitOrder);
  for (const key of left) {
    problems.push(new Problem(null, null, `${OPENINGS} names event ${pyRepr(key)}, which the export does not hold`, "seal"));
  }
  const last = events.length ? events[events.length - 1] : null;
  if (isObject(last) && last.type === CLOSED) {
    for (const event of unopened) {
      const [seq, kind] = where(event);
      const message = "sealed, and the export does not open it (a closed bout's export opens every seal)";
      problems.push(new Problem(seq, kind, message, "seal"));
    }
  }
  return { events: out, problems, unopened: unopened.length };
}

/** Python's sorted() order of strings: by code point. */
function codeUnitOrder(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

// JSON as Python's `json.loads` reads it, and values shown as Python's repr() shows them, so
// that the browser verifier (verifier.js) judges and words everything exactly as
// `referee verify` does (src/referee/ledger/verify.py).
//
// JSON.parse cannot tell 1 from 1.0, loses integers above 2^53 and orders keys like "2"
// before "a"; this reader keeps what Python keeps: a float literal is a PyFloat, keys keep
// their order of first appearance, and an integer JavaScript cannot hold exactly is counted
// (the verifier then says plainly that it cannot check the export, instead of a wrong verdict).

import { printable } from "./printable.js";

/** A number written with a fraction or an exponent: Python reads it as a float. */
export class PyFloat {
  constructor(value) {
    this.value = value;
  }
}

/** Python's limit on the digits of an integer it reads (sys.get_int_max_str_digits()). */
export const MAX_INT_DIGITS = 4300;

const ORDER = Symbol("key order");

/** The keys of an object in the order Python's dict has them (first appearance). */
export function keysOf(obj) {
  return obj[ORDER] || Object.keys(obj);
}

/** A plain object with keys in this order (also for "__proto__" and number-like keys). */
export function makeObject(entries) {
  const obj = {};
  const order = [];
  for (const [key, value] of entries) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) order.push(key);
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  }
  Object.defineProperty(obj, ORDER, { value: order, enumerable: false });
  return obj;
}

/** Raised for text that is not JSON (the message says where). */
export class JsonSyntaxError extends Error {}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const SPACE = /[ \t\n\r]*/y;
const MAX_NESTING = 900;

/**
 * Read JSON text as Python does. Returns {value, unsafeIntegers}: the number of integers
 * beyond 2^53 - 1 that JavaScript could not hold exactly (their values here are rounded).
 */
export function parsePythonJson(text) {
  let at = 0;
  let unsafe = 0;
  const fail = (what) => {
    throw new JsonSyntaxError(`${what} at character ${at}`);
  };
  const space = () => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const literal = (word, value) => {
    if (text.startsWith(word, at)) {
      at += word.length;
      return value;
    }
    return fail("expecting a value");
  };
  const string = () => {
    let out = "";
    at += 1;
    for (;;) {
      const ch = text[at];
      if (ch === undefined) fail("unterminated string");
      if (ch === '"') {
        at += 1;
        return out;
      }
      if (ch < " ") fail("invalid control character in a string");
      if (ch !== "\\") {
        out += ch;
        at += 1;
        continue;
      }
      const esc = text[at + 1];
      const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (esc in simple) {
        out += simple[esc];
        at += 2;
      } else if (esc === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) {
        out += String.fromCharCode(parseInt(text.slice(at + 2, at + 6), 16));
        at += 6;
      } else {
        fail("invalid escape in a string");
      }
    }
  };
  const number = () => {
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(text);
    if (!m) return fail("expecting a value");
    at = NUMBER.lastIndex;
    if (m[1] !== undefined || m[2] !== undefined) return new PyFloat(Number(m[0]));
    const digits = m[0].replace("-", "").length;
    if (digits > MAX_INT_DIGITS) {
      throw new JsonSyntaxError(`an integer of ${digits} digits (more than ${MAX_INT_DIGITS})`);
    }
    const value = Number(m[0]);
    if (!Number.isSafeInteger(value)) unsafe += 1;
    return value;
  };
  const value = (depth) => {
    if (depth > MAX_NESTING) throw new JsonSyntaxError("JSON nested too deeply");
    space();
    const ch = text[at];
    if (ch === "{") return object(depth);
    if (ch === "[") return array(depth);
    if (ch === '"') return string();
    if (ch === "t") return literal("true", true);
    if (ch === "f") return literal("false", false);
    if (ch === "n") return literal("null", null);
    if (ch === "N") return literal("NaN", new PyFloat(NaN));
    if (ch === "I") return literal("Infinity", new PyFloat(Infinity));
    if (ch === "-" && text.startsWith("-Infinity", at)) return literal("-Infinity", new PyFloat(-Infinity));
    return number();
  };
  const array = (depth) => {
    const out = [];
    at += 1;
    space();
    if (text[at] === "]") {
      at += 1;
      return out;
    }
    for (;;) {
      out.push(value(depth + 1));
      space();
      if (text[at] === ",") at += 1;
      else if (text[at] === "]") {
        at += 1;
        return out;
      } else fail("expecting ',' or ']'");
    }
  };
  const object = (depth) => {
    const entries = [];
    at += 1;
    space();
    if (text[at] === "}") {
      at += 1;
      return makeObject(entries);
    }
    for (;;) {
      space();
      if (text[at] !== '"') fail("expecting a property name in double quotes");
      const key = string();
      space();
      if (text[at] !== ":") fail("expecting ':'");
      at += 1;
      entries.push([key, value(depth + 1)]);
      space();
      if (text[at] === ",") at += 1;
      else if (text[at] === "}") {
        at += 1;
        return makeObject(entries);
      } else fail("expecting ',' or '}'");
    }
  };
  const result = value(0);
  space();
  if (at !== text.length) fail("extra data");
  return { value: result, unsafeIntegers: unsafe };
}

/** Python's repr() of a float. */
export function pyFloatRepr(x) {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, exp] = x.toExponential().split("e");
  const e = Number(exp);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (e < -4 || e >= 16) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const power = Math.abs(e) < 10 ? `0${Math.abs(e)}` : String(Math.abs(e));
    return `${sign}${digits[0]}${rest}e${e < 0 ? "-" : "+"}${power}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
  const fraction = digits.slice(e + 1);
  return `${sign}${whole}.${fraction || "0"}`;
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
    else if (printable(ch)) out += ch; // Unicode 14.0's table, as Python's verifier reads it
    else if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return quote + out + quote;
}

/** Python's repr() of a JSON value, so that messages read exactly as the CLI's. */
export function pyRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return pyStr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  return `{${keysOf(value)
    .map((k) => `${pyStr(k)}: ${pyRepr(value[k])}`)
    .join(", ")}}`;
}

/** Python's `type(a) is type(b) and a == b` for JSON values, recursively. */
export function sameJson(a, b) {
  if (a instanceof PyFloat || b instanceof PyFloat) {
    return a instanceof PyFloat && b instanceof PyFloat && a.value === b.value;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  const isObj = (v) => v !== null && typeof v === "object";
  if (isObj(a) || isObj(b)) {
    if (!isObj(a) || !isObj(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]));
  }
  return a === b || (a === undefined && b === null) || (a === null && b === undefined);
}

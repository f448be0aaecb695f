// Canonical JSON, SHA-256, HMAC-SHA256 and the verifiable dice: the bytes the Python side
// hashes (src/referee/ledger/canonical.py, src/referee/rng/verifiable.py), rebuilt in the
// browser. WebCrypto is used when the page is a secure context (https, localhost); a small
// pure-JS SHA-256 takes over elsewhere (for instance plain http on a LAN address).

const encoder = new TextEncoder();

/** Compare two strings by Unicode code point, as Python's sort_keys does. */
export function codePointCompare(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i += 1) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * The canonical text of a JSON value: keys sorted (recursively), no spaces, text kept as is.
 * Matches json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for
 * integers, strings, booleans, null, arrays and objects.
 */
export function canonicalText(value, omit = null) {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error(`float ${value} cannot be hashed`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalText(v)).join(",")}]`;
  const keys = Object.keys(value)
    .filter((k) => k !== omit)
    .sort(codePointCompare);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalText(value[k])}`).join(",")}}`;
}

/** The canonical UTF-8 bytes of a value. */
export function canonicalBytes(value) {
  return encoder.encode(canonicalText(value));
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- pure-JS SHA-256 (FIPS 180-4) ---------------------------------------------------------

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x, n) => (x >>> n) | (x << (32 - n));

/** SHA-256 of bytes, in pure JavaScript (the fallback when WebCrypto is absent). */
export function sha256Pure(bytes) {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array(((bytes.length + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i += 1) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i += 1) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i += 1) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const add = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i += 1) h[i] = (h[i] + add[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i += 1) outView.setUint32(i * 4, h[i]);
  return out;
}

/** HMAC-SHA256 in pure JavaScript (RFC 2104). */
export function hmacPure(key, message) {
  const k = key.length > 64 ? sha256Pure(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i += 1) {
    inner[i] = block[i] ^ 0x36;
    outer[i] = block[i] ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(sha256Pure(inner), 64);
  return sha256Pure(outer);
}

const subtle = globalThis.crypto && globalThis.crypto.subtle;

/** SHA-256 of bytes (WebCrypto when available). */
export async function sha256(bytes, { pure = false } = {}) {
  if (subtle && !pure) return new Uint8Array(await subtle.digest("SHA-256", bytes));
  return sha256Pure(bytes);
}

/** SHA-256 hex of a text's UTF-8 bytes. */
export async function sha256Hex(text, options) {
  return toHex(await sha256(encoder.encode(text), options));
}

/** A function msg -> HMAC-SHA256(key, msg) for one key (WebCrypto when available). */
export async function hmacFor(keyText, { pure = false } = {}) {
  const key = encoder.encode(keyText);
  if (subtle && !pure) {
    const cryptoKey = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    return async (msg) => new Uint8Array(await subtle.sign("HMAC", cryptoKey, encoder.encode(msg)));
  }
  return async (msg) => hmacPure(key, encoder.encode(msg));
}

/** The event hash: SHA-256 hex of the canonical JSON of the event without its "hash" key. */
export async function eventHash(event, options) {
  return toHex(await sha256(encoder.encode(canonicalText(event, "hash")), options));
}

/** The commitment to a server seed: SHA-256 hex of its text. */
export function commitmentOf(serverSeed, options) {
  return sha256Hex(serverSeed, options);
}

const WORD = 2 ** 32;

/**
 * The faces of one roll (CONTEXT.md, "Verifiable rolls"): HMAC-SHA256(key = server seed hex
 * text, msg = "<client seed>:<nonce>:<cursor>", or in dice scheme 2
 * "<client seed>:<stream>:<nonce>:<cursor>"), 4-byte big-endian words, rejection sampling.
 * `mac` is a function from hmacFor(serverSeed); `stream` is null in scheme 1.
 */
export async function facesOf(mac, clientSeed, nonce, sides, stream = null) {
  const prefix = stream === null ? clientSeed : `${clientSeed}:${stream}`;
  let cursor = 0;
  let words = [];
  const next = async () => {
    if (words.length === 0) {
      const block = await mac(`${prefix}:${nonce}:${cursor}`);
      const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
      for (let i = 0; i < 32; i += 4) words.push(view.getUint32(i));
      cursor += 1;
    }
    return words.shift();
  };
  const faces = [];
  for (const n of sides) {
    const limit = WORD - (WORD % n);
    let w = await next();
    while (w >= limit) w = await next();
    faces.push((w % n) + 1);
  }
  return faces;
}

// Runs the browser's verifier (src/referee/service/static/js/verifier.js, the very file the
// page loads) under Node on test vectors: one JSON line in per vector, one JSON line out.
//   in:  {"text": "<the export's JSON text>", "partial": false}
//   out: {"verdict", "problems": [...], "rulings": [...], "skipped": [...], "rolls"}
//        or {"error": "not an export: ..."} or {"cannot": "..."}
// With "schema": true it checks each event against the published event schema
// (static/schema/events.json) instead: out: {"valid": [true, false, ...]}.
import { readFileSync } from "node:fs";
import { webcrypto } from "node:crypto";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

// Node 18 has WebCrypto only as node:crypto's webcrypto; 19 and later as globalThis.crypto.
if (!globalThis.crypto) globalThis.crypto = webcrypto;

const [root] = process.argv.slice(2);
const verifier = await import(pathToFileURL(`${root}/src/referee/service/static/js/verifier.js`).href);
const { checkEvents } = await import(pathToFileURL(`${root}/tests/vectors/schema.mjs`).href);
const schema = JSON.parse(readFileSync(`${root}/src/referee/service/static/schema/events.json`, "utf8"));

function checkSchema(vector) {
  try {
    return { valid: checkEvents(schema, JSON.parse(vector.text)) };
  } catch (err) {
    return { crash: `${err.name}: ${err.message}` };
  }
}

async function judge(vector) {
  try {
    const r = await verifier.verifyExportText(vector.text, { partial: Boolean(vector.partial) });
    return {
      verdict: r.verdict,
      problems: r.problems.map(String),
      rulings: r.rulings.map(String),
      skipped: r.skipped.filter((s) => !s.startsWith("rules:")),
      rolls: r.rows.length,
      last: [r.last.seq, r.last.type],
    };
  } catch (err) {
    if (err instanceof verifier.CannotVerifyHere) return { cannot: err.message };
    if (err instanceof verifier.NotAnExport) return { error: err.message };
    return { crash: `${err.name}: ${err.message}` };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const vector = JSON.parse(line);
  const answer = vector.schema ? checkSchema(vector) : await judge(vector);
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

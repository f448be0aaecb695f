// What this browser was shown of each bout, kept in its own storage: the commitment published
// at the start, the client seed (the newest one shown: it grows as fighters join, `gm:part1:
// part2`, and is fixed by the first roll) and the newest event (its seq and hash) it saw. An
// export rewritten as a whole (a new referee part or server seed ground so that the loser
// wins, every face and hash recomputed) holds together by itself; only what a player kept
// while the bout went on can show it. Every page that shows a bout keeps what it shows (the
// bout's view through api.js, the live stream, the answers to a join or a new bout); the
// verifier page checks every export against this memory without being asked (the command
// line does the same with `referee verify --expect-commitment C --expect-client-seed S
// --expect-hash SEQ:HASH`).

import { EventType } from "./vocabulary.js";

const PREFIX = "referee-witness-";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused (a private window): nothing is kept, nothing is checked
  }
}

/** What this browser keeps of bout `id`: {commitment, client_seed, client_seed_fixed, seq,
 * hash} (any of them may be missing), or null. */
export function recalled(id) {
  const store = storage();
  if (!store || typeof id !== "string") return null;
  try {
    const kept = JSON.parse(store.getItem(PREFIX + id) || "null");
    return kept && typeof kept === "object" && !Array.isArray(kept) ? kept : null;
  } catch {
    return null;
  }
}

function keep(id, changes) {
  const store = storage();
  if (!store || typeof id !== "string") return;
  const kept = { ...(recalled(id) || {}), ...changes };
  try {
    store.setItem(PREFIX + id, JSON.stringify(kept));
  } catch {
    // storage full or refused: the page works on without a memory
  }
}

/** The commitment a page was shown for bout `id` (the first one shown is the one kept). */
export function sawCommitment(id, commitment) {
  const kept = recalled(id);
  if (typeof commitment === "string" && !(kept && kept.commitment)) keep(id, { commitment });
}

/**
 * The client seed a page was shown for bout `id`. The newest one is kept when it is the kept
 * one grown by parts (`gm` then `gm:tarl`): a client seed only grows, until the first roll
 * fixes it (`fixed`: the page saw it fixed, so no part can follow). One that is neither the
 * kept one nor grown from it (an answer older than the last, or another story) leaves the
 * kept one as it is: what was shown first stands.
 */
export function sawClientSeed(id, seed, { fixed = false } = {}) {
  if (typeof seed !== "string" || seed === "") return;
  const kept = recalled(id);
  const before = kept && typeof kept.client_seed === "string" ? kept.client_seed : null;
  const wasFixed = !!(kept && kept.client_seed_fixed);
  if (before === seed) {
    if (fixed && !wasFixed) keep(id, { client_seed_fixed: true });
    return;
  }
  if (before !== null && (wasFixed || !seed.startsWith(`${before}:`))) return;
  keep(id, fixed ? { client_seed: seed, client_seed_fixed: true } : { client_seed: seed });
}

/** A bout's view (GET /api/bouts/ID, or an answer that says the same): its commitment and its
 * client seed. */
export function sawView(id, view) {
  if (!view || typeof view !== "object") return;
  sawCommitment(id, view.commitment);
  sawClientSeed(id, view.client_seed);
}

/** An event a page was shown (the live stream, the log): the newest one is kept; the one that
 * fixes the client seed (`client_seed_fixed`) is kept as the client seed, fixed. */
export function sawEvent(id, event) {
  if (!event || typeof event !== "object") return;
  if (event.type === EventType.CLIENT_SEED_FIXED && event.payload && typeof event.payload === "object") {
    sawClientSeed(id, event.payload.client_seed, { fixed: true });
  }
  if (typeof event.seq !== "number" || typeof event.hash !== "string") return;
  const kept = recalled(id);
  if (kept && typeof kept.seq === "number" && kept.seq >= event.seq) return;
  keep(id, { seq: event.seq, hash: event.hash });
}

const short = (text) => `${String(text).slice(0, 12)}…`;

/**
 * The export checked against what this browser saw of its bout: null when it saw nothing of
 * it, else {ok, lines}: the commitment shown at the start must be the export's; the export's
 * client seed must be the one shown, or (when this browser did not see it fixed) the one
 * shown followed by `:` and more parts (fighters who joined after this browser left); and the
 * newest event seen must be in the export with the very same hash.
 */
export function checkAgainstMemory(doc) {
  const id = doc && doc.bout && doc.bout.id;
  const kept = recalled(id);
  if (!kept) return null;
  const fairness = (doc && doc.fairness) || {};
  const lines = [];
  let ok = true;
  if (typeof kept.commitment === "string") {
    const found = fairness.commitment;
    if (found === kept.commitment) {
      lines.push(`the commitment is the one this browser was shown (${short(kept.commitment)})`);
    } else {
      ok = false;
      lines.push(
        `the commitment ${short(found)} is not the one this browser was shown ` +
          `(${short(kept.commitment)}): the export was rewritten from another seed`,
      );
    }
  }
  if (typeof kept.client_seed === "string") {
    const shown = kept.client_seed;
    const found = fairness.client_seed;
    const grown = !kept.client_seed_fixed && typeof found === "string" && found.startsWith(`${shown}:`);
    if (found === shown) {
      lines.push(`the client seed is the one this browser was shown (${shown})`);
    } else if (grown) {
      lines.push(`the client seed ${found} is the one this browser was shown (${shown}) with the parts of fighters who joined after`);
    } else {
      ok = false;
      const when = kept.client_seed_fixed ? " when the first roll fixed it" : "";
      lines.push(
        `the client seed ${typeof found === "string" ? found : String(found)} is not the one this browser was shown${when} ` +
          `(${shown}${kept.client_seed_fixed ? "" : ", or it followed by more parts"}): the export was rewritten`,
      );
    }
  }
  if (typeof kept.seq === "number" && typeof kept.hash === "string") {
    const events = Array.isArray(doc.events) ? doc.events : [];
    const same = events.find((e) => e && e.seq === kept.seq);
    if (same && same.hash === kept.hash) {
      lines.push(`event ${kept.seq}, the last this browser saw, is in it with the hash it had`);
    } else {
      ok = false;
      lines.push(
        same
          ? `event ${kept.seq} has another hash than the one this browser saw: the export was rewritten`
          : `event ${kept.seq}, which this browser saw, is not in it: the export was cut or rewritten`,
      );
    }
  }
  return { ok, lines };
}

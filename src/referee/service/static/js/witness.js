// What this browser was shown of each bout, kept in its own storage: the commitment published
// at the start, and the last event (its seq and hash) it saw. An export rewritten as a whole
// (a new server seed ground so that the loser wins, every face and hash recomputed) holds
// together by itself; only what a player kept while the bout went on can show it. The
// verifier page checks every export against this memory without being asked (the command
// line does the same with `referee verify --expect-commitment C --expect-hash H`).

const PREFIX = "referee-witness-";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused (a private window): nothing is kept, nothing is checked
  }
}

/** What this browser keeps of bout `id`: {commitment, seq, hash}, or null. */
export function recalled(id) {
  const store = storage();
  if (!store || typeof id !== "string") return null;
  try {
    const kept = JSON.parse(store.getItem(PREFIX + id) || "null");
    return kept && typeof kept === "object" ? kept : null;
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

/** An event a page was shown (the live stream, the log): the latest one is kept. */
export function sawEvent(id, event) {
  if (!event || typeof event.seq !== "number" || typeof event.hash !== "string") return;
  const kept = recalled(id);
  if (kept && typeof kept.seq === "number" && kept.seq >= event.seq) return;
  keep(id, { seq: event.seq, hash: event.hash });
}

/**
 * The export checked against what this browser saw of its bout: null when it saw nothing of
 * it, else {ok, lines}: the commitment shown at the start must be the export's, and the last
 * event seen must be in the export with the very same hash.
 */
export function checkAgainstMemory(doc) {
  const id = doc && doc.bout && doc.bout.id;
  const kept = recalled(id);
  if (!kept) return null;
  const lines = [];
  let ok = true;
  if (typeof kept.commitment === "string") {
    const found = doc.fairness && doc.fairness.commitment;
    if (found === kept.commitment) {
      lines.push(`the commitment is the one this browser was shown (${kept.commitment.slice(0, 12)}…)`);
    } else {
      ok = false;
      lines.push(
        `the commitment ${String(found).slice(0, 12)}… is not the one this browser was shown ` +
          `(${kept.commitment.slice(0, 12)}…): the export was rewritten from another seed`,
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

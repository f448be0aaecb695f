// "My bouts": the bouts this browser opened or joined, with its role in each (referee, or
// fighter NAME) and the last state it saw, kept in this browser's localStorage. Each entry
// holds the token of its page, so that the home page can link back to it and ask the service
// for the bout's state: the token goes nowhere but into that page's fragment and the
// `Authorization` header of requests to the referee service. Forget one, or all, on the home page.

const KEY = "referee-my-bouts";
/** At most this many bouts are kept (the oldest seen is dropped first). */
export const MAX_KEPT = 50;

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused (a private window): nothing is kept
  }
}

function same(a, b) {
  return a.id === b.id && a.role === b.role && (a.fighter || null) === (b.fighter || null);
}

function save(entries) {
  const store = storage();
  if (!store) return;
  try {
    store.setItem(KEY, JSON.stringify(entries.slice(0, MAX_KEPT)));
  } catch {
    // storage full or refused: the page works on without the list
  }
}

/** Every bout kept, the one seen last first. */
export function myBouts() {
  const store = storage();
  if (!store) return [];
  try {
    const kept = JSON.parse(store.getItem(KEY) || "[]");
    return Array.isArray(kept) ? kept.filter((e) => e && typeof e.id === "string" && typeof e.role === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Keep (or update) this browser's entry for a bout: {id, role: "referee" | "fighter", fighter,
 * token, name, system, state}. The entry moves to the top of the list.
 */
export function remember(entry) {
  const all = myBouts();
  const old = all.find((e) => same(e, entry));
  const kept = { ...(old || {}), ...entry, seen: new Date().toISOString() };
  save([kept, ...all.filter((e) => !same(e, entry))]);
}

/** Update the state kept for an entry without moving it (the home page's refresh). */
export function restate(entry, state) {
  save(myBouts().map((e) => (same(e, entry) ? { ...e, state } : e)));
}

/** Forget one entry (its token with it). */
export function forget(entry) {
  save(myBouts().filter((e) => !same(e, entry)));
}

/** Forget every bout this browser kept. */
export function forgetAll() {
  const store = storage();
  if (store) store.removeItem(KEY);
}

/** The page an entry opens: the referee's or the fighter's, its token in the fragment. */
export function pageOf(entry) {
  const page = entry.role === "referee" ? "referee" : "fighter";
  const token = entry.token ? `&token=${encodeURIComponent(entry.token)}` : "";
  return `${location.origin}/static/${page}.html#bout=${encodeURIComponent(entry.id)}${token}`;
}

/** The role in words: "referee", "fighter Tarl". */
export function roleWords(entry) {
  return entry.role === "referee" ? "referee" : `fighter ${entry.fighter || ""}`.trim();
}

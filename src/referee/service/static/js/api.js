// Talking to the referee service: JSON requests with the bearer token, the service's error
// messages shown as they are, the page's fragment (#bout=ID&token=T) and the live stream.

import { EVENT_TYPES } from "./vocabulary.js";
import { sawClientSeed, sawEvent, sawView } from "./witness.js";

/** The page's fragment as an object: #bout=ID&token=T -> {bout: "ID", token: "T"}. */
export function fragment() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  return Object.fromEntries(params.entries());
}

/** An error the service answered with: its `error` code, `message` and HTTP status. */
export class ServiceError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** One request; resolves to the JSON answer or rejects with a ServiceError. */
export async function call(method, path, { token = null, body = undefined, headers: more = {} } = {}) {
  const headers = { Accept: "application/json", ...more };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch (err) {
    throw new ServiceError(0, "network", `the service cannot be reached (${err.message})`);
  }
  const text = await response.text();
  let data = null;
  let json = true;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    json = false;
    data = { error: "bad_answer", message: text.slice(0, 200) };
  }
  if (!response.ok) {
    // An answer without the service's own message (a proxy's error page, an empty body) is
    // said in words, never shown as the page's HTML.
    const given = json && data && typeof data.message === "string" && data.message;
    const message = given || noMessage(response);
    throw new ServiceError(response.status, (given && data.error) || "http_error", message);
  }
  return data;
}

/** What a failed answer without the service's message says: its status, and what to do. */
function noMessage(response) {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  return `the service answered ${status} with no message of its own (it may be down or restarting): reload the page in a moment to see where things stand`;
}

/** A part of the client seed drawn by this browser (16 hex digits from its own secure
 * generator, never the server's): what a fighter's page adds when it joins or is added, after
 * the commitment is published, so that no seed can be chosen to suit the client seed. */
export function seedPart() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `send(body)` with a part of the client seed drawn here added, or without one when the bout
 * has rolled already (its client seed is fixed by the first roll). */
export async function withSeedPart(send, body) {
  try {
    return await send({ ...body, client_seed: seedPart() });
  } catch (err) {
    if (err instanceof ServiceError && /client seed is fixed/.test(err.message)) return send(body);
    throw err;
  }
}

/** A small client bound to one bout and one token. */
export class Bout {
  constructor(id, token = null) {
    this.id = id;
    this.token = token;
    this.base = `/api/bouts/${encodeURIComponent(id)}`;
  }

  async get(path = "") {
    const data = await call("GET", this.base + path, { token: this.token });
    if (path === "") sawView(this.id, data); // its commitment and client seed, kept for the verifier
    return data;
  }

  async post(path, body) {
    const data = await call("POST", this.base + path, { token: this.token, body });
    // A join (or a fighter added) answers with the client seed it grew: kept for the verifier.
    if ((path === "/join" || path === "/fighters") && data) {
      sawClientSeed(this.id, data.client_seed);
      sawEvent(this.id, data); // the join's own event (seq and hash), the newest this page saw
    }
    return data;
  }

  patch(path, body) {
    return call("PATCH", this.base + path, { token: this.token, body });
  }

  delete(path) {
    return call("DELETE", this.base + path, { token: this.token });
  }

  /**
   * Follow the bout's events live (server-sent events). The public stream is used, so no
   * token ever goes into a URL; pages that may see more re-read the state with their token.
   * `onEvent(event)` gets every ledger event once, in order; `onStatus(text)` the link state.
   */
  follow(onEvent, onStatus = () => {}) {
    let last = -1;
    const source = new EventSource(`${this.base}/events`);
    const handle = (message) => {
      const event = JSON.parse(message.data);
      if (event.seq <= last) return;
      last = event.seq;
      sawEvent(this.id, event); // the last event shown, kept for the verifier
      onEvent(event);
    };
    source.onmessage = handle;
    source.onopen = () => onStatus("live");
    source.onerror = () => onStatus(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
    for (const type of EVENT_TYPES) source.addEventListener(type, handle);
    return source;
  }
}

/** Every event type the bout engine writes (SSE messages are named by type). */
export { EVENT_TYPES };

/** Show a message in the page's message box, its one live region (`say("")` empties it). The
 * box stays in the page with the same role: a region shown with its text already in it, or
 * whose role changes, is not announced by every screen reader. An error is announced at once
 * (assertive), anything else when the reader is free (polite). */
export function say(text, kind = "info", about = "") {
  const box = document.getElementById("message");
  if (!box) return;
  box.setAttribute("aria-live", kind === "error" ? "assertive" : "polite");
  box.textContent = text;
  box.className = `message ${kind}`;
  box.dataset.about = about; // what the message is about ("action": one fighter's action)
}

/** Run an async action from a button or form, showing the service's message on failure.
 * `done` is the message on success (green), or a function of the answer that gives it, as
 * text or as `{ text, kind, about }` (see `say`). */
export async function attempt(action, done = null) {
  try {
    const result = await action();
    if (done) {
      const said = typeof done === "function" ? done(result) : done;
      if (typeof said === "string") say(said, "ok");
      else say(said.text, said.kind || "ok", said.about || "");
    }
    return result;
  } catch (err) {
    say(err instanceof ServiceError ? `${err.message}` : String(err.message || err), "error");
    return undefined;
  }
}

/** Run `work` for `control` (a form or a button) one press at a time: a press while the last
 * one is still being answered (a double click, a second Enter) does nothing. The control is
 * not disabled meanwhile, so it keeps the keyboard's focus; `data-busy` marks it. */
export async function once(control, work) {
  if (control.dataset.busy) return undefined;
  control.dataset.busy = "yes";
  try {
    return await work();
  } finally {
    delete control.dataset.busy;
  }
}

/** document.createElement with attributes and children, for building small bits of page. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replace a node's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) if (child) node.append(child);
}

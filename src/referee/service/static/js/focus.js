// The keyboard's focus through a redraw. A page that draws a part of itself again (the
// fighters' cards, the fairness line, the list of my bouts) or disables or hides the control
// just pressed (Pause, once paused) drops the focus to the page itself, and the next Tab
// starts again from the top. `noteFocus(area)` notes where the focus is; `putFocusBack(note)`
// puts it back on the same control drawn again or, when that one is gone, disabled or hidden,
// on the one it names to take its place (`data-then`: Pause names Resume), else on the
// control beside it (the next one, else the one before). A control that acts at once and
// cannot be undone (`data-no-focus`: a fighter's Remove) is never the one chosen in another's
// place, so that a second Enter never does what the first did not ask for.

const CONTROLS = "a[href], button, input, select, textarea, summary, [tabindex]";

/** Whether the keyboard can be on `node` now: connected, enabled, drawn (not hidden, nor in a
 * closed <details>), in the Tab order. */
export function usable(node) {
  if (!node || !node.isConnected || node.disabled || node.tabIndex < 0) return false;
  return drawn(node);
}

/** Whether `node` is drawn: not hidden, nor in a closed <details>. */
function drawn(node) {
  if (node.checkVisibility) return node.checkVisibility({ visibilityProperty: true });
  return node.getClientRects().length > 0 && !node.closest("details:not([open]) > :not(summary)");
}

/** Whether the focus has been lost to the page, or sits where the keyboard cannot be (gone,
 * disabled, hidden). A part focused on purpose out of the Tab order (the bout's, where the
 * skip link puts the focus; the action form, parked) still has it. */
export function focusLost() {
  const active = document.activeElement;
  if (!active || active === document.body) return true;
  return !active.isConnected || active.disabled || !drawn(active);
}

/** The controls of `area` the keyboard can be on, in the page's order. */
function controls(area) {
  return [...area.querySelectorAll(CONTROLS)].filter(usable);
}

/** Those of `nodes` the focus may be handed to in another's place: not `data-no-focus`. */
function safe(nodes) {
  return nodes.filter((n) => !n.hasAttribute("data-no-focus"));
}

/** What makes a control the same one when it is drawn again: its id, else its card's name and
 * its name (the fighters' cards are `[data-name]`; a copy button's label stays while its text
 * says "copied"). */
function keyOf(node) {
  if (node.id) return `#${node.id}`;
  const card = node.closest("[data-name]");
  const label = node.getAttribute("aria-label") || node.textContent.trim();
  return `${card ? card.dataset.name : ""}|${node.tagName}|${label}`;
}

/** Where the focus is, if it is on a control inside `area` (else null: nothing to keep). */
export function noteFocus(area) {
  const active = document.activeElement;
  if (!area || !active || active === document.body || !area.contains(active)) return null;
  const part = active.closest("section, fieldset") || area;
  const note = { node: active, area, part, key: keyOf(active), index: controls(part).indexOf(active), card: null };
  const card = active.closest("[data-name]");
  if (card && card.parentElement && part.contains(card)) {
    const cards = [...card.parentElement.children];
    note.card = { list: card.parentElement, name: card.dataset.name, at: cards.indexOf(card), index: controls(card).indexOf(active) };
  }
  return note;
}

/** On a card drawn again (a fighter's: `[data-name]`), the control at the same place in the
 * same card, else in the card now where it was (the one after a card removed); when that one
 * is `data-no-focus` (Remove), the card's first other control, else its heading. */
function onCard(was) {
  if (!was || !was.list.isConnected) return null;
  const cards = [...was.list.children].filter((c) => c.dataset && c.dataset.name !== undefined);
  const card = cards.find((c) => c.dataset.name === was.name) || cards[Math.min(was.at, cards.length - 1)];
  if (!card) return null;
  const all = controls(card);
  const there = all[Math.min(Math.max(was.index, 0), all.length - 1)];
  if (there && !there.hasAttribute("data-no-focus")) return there;
  const first = safe(all)[0];
  if (first) return first;
  const heading = card.querySelector("h1, h2, h3, h4") || card;
  heading.tabIndex = -1; // focused on purpose, out of the Tab order
  return heading;
}

/** Put the focus back after a redraw, if it was lost (see above); true when it was put. */
export function putFocusBack(note) {
  if (!note || !focusLost()) return false;
  const all = controls(note.part);
  const others = safe(all);
  // A control may name the one that takes its place (Resume, once paused, is Pause's).
  const then = note.node.dataset && note.node.dataset.then ? document.getElementById(note.node.dataset.then) : null;
  let next = usable(then) ? then : all.find((n) => keyOf(n) === note.key);
  if (!next && note.node.isConnected) {
    // still on the page but disabled or hidden: the control after it, else the one before
    const after = (n) => note.node.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING;
    next = others.find(after) || others.filter((n) => !after(n)).at(-1);
  }
  if (!next) next = onCard(note.card) || others[Math.min(Math.max(note.index, 0), others.length - 1)];
  if (!next && note.part.isConnected && note.part !== note.area) {
    // nothing left to press in its part (the referee's powers, once the bout is closed): the
    // next control of the page after that part, else the one before it
    const rest = safe(controls(note.area)).filter((n) => !note.part.contains(n));
    const after = (n) => note.part.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING;
    next = rest.find(after) || rest.at(-1);
  }
  if (!next) return false;
  next.focus();
  return true;
}

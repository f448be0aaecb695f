// The SRP map (SRP-14, SRP-15): positions, facing, reach and zones of control, drawn so that
// no zone covers a name. The acting fighter can be dragged to move (the move is sent as the
// same `move`/`charge`/`step` action the form sends, with the path in whole centimetres, and
// facing the nearest standing enemy where it stops, so a step backwards never turns its back
// to the foe) and turned by its facing handle (a `face` action). While dragging, the distance walked and the
// distance to each enemy are shown. A refused move snaps back and the reason is said. Keyboard:
// focus the token, arrow keys add 1.5 m squares to the path, Enter sends, Escape cancels,
// Q / E turn 45 degrees.

import { el, fill } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";
const SQUARE = 1.5; // metres (SRP-14)
const SAMPLE = 0.5; // metres between the points of a dragged path
const MAX_PATH = 40; // squares one move may list (the service's bound)

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

const placedOf = (f) => f.stats && Number.isInteger(f.stats.x_cm) && Number.isInteger(f.stats.y_cm);
const reachOf = (f) => ((f.stats.weapons && f.stats.weapons[0] && f.stats.weapons[0].reach_cm) || 150) / 100;
const metres = (v) => `${Math.round(v * 100) / 100}`;
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/** Whether any fighter has a position (the SRP map). */
export function hasPositions(view) {
  return view.fighters.some(placedOf);
}

/** Whole degrees from `from` to `to` (metres; 0 = east, 90 = north), as the service's bearing. */
export function bearingTo(from, to) {
  return ((Math.round((Math.atan2(to[1] - from[1], to[0] - from[0]) * 180) / Math.PI) % 360) + 360) % 360;
}

/** Where a mover stopping at `end` faces: the nearest of `enemies` (null when there is none). */
export function facingAfter(end, enemies) {
  let best = null;
  for (const o of enemies) {
    const at = [o.stats.x_cm / 100, o.stats.y_cm / 100];
    if (!best || dist(end, at) < dist(end, best)) best = at;
  }
  return best ? bearingTo(end, best) : null;
}

/** The points of a straight path from `start` to `end` (metres), every SAMPLE m, in whole cm. */
export function straightPath(start, end) {
  const length = dist(start, end);
  const steps = Math.min(MAX_PATH, Math.max(1, Math.ceil(length / SAMPLE)));
  const out = [];
  for (let i = 1; i <= steps; i += 1) {
    const t = i / steps;
    out.push([Math.round((start[0] + (end[0] - start[0]) * t) * 100), Math.round((start[1] + (end[1] - start[1]) * t) * 100)]);
  }
  return out;
}

/**
 * Draw the map of `view` into `node`. `options.mover` names the fighter that may be moved now
 * (or null); `options.send(kind, options)` sends an action for it and resolves to the answer
 * (or undefined when the service refused it, having said why).
 */
export function renderMap(node, view, { mover = null, send = null, mode = () => "move" } = {}) {
  const placed = view.fighters.filter(placedOf);
  if (!placed.length) {
    fill(node, el("p", { class: "muted" }, "No positions on the sheets."));
    return;
  }
  const xs = placed.map((f) => f.stats.x_cm / 100);
  const ys = placed.map((f) => f.stats.y_cm / 100);
  const pad = Math.max(...placed.map(reachOf)) + 1.5;
  const minX = Math.min(...xs) - pad;
  const maxX = Math.max(...xs) + pad;
  const minY = Math.min(...ys) - pad;
  const maxY = Math.max(...ys) + pad;
  const sides = [...new Set(view.fighters.map((f) => f.side))];
  const root = svg("svg", {
    viewBox: `${minX} ${-maxY} ${maxX - minX} ${maxY - minY}`,
    class: "map",
    role: "group",
    "aria-label": "Map: " + placed.map((f) => `${f.name} at (${f.stats.x_cm / 100}, ${f.stats.y_cm / 100}) m facing ${f.stats.facing || 0}°`).join("; "),
  });
  root.append(svg("title", {}, "Positions, facing, reach and zones of control (1 unit = 1 m)"));
  const grid = svg("g", { class: "grid-layer" });
  for (let gx = Math.ceil(minX / SQUARE) * SQUARE; gx <= maxX; gx += SQUARE) grid.append(svg("line", { x1: gx, x2: gx, y1: -maxY, y2: -minY, class: "grid" }));
  for (let gy = Math.ceil(minY / SQUARE) * SQUARE; gy <= maxY; gy += SQUARE) grid.append(svg("line", { x1: minX, x2: maxX, y1: -gy, y2: -gy, class: "grid" }));
  // Layers, bottom to top: zones, bodies and handles, the drag guide, names (never covered).
  const zones = svg("g", { class: "zones" });
  const bodies = svg("g", { class: "bodies" });
  const guide = svg("g", { class: "guide" });
  const names = svg("g", { class: "names" });
  root.append(grid, zones, bodies, guide, names);
  for (const f of placed) {
    const x = f.stats.x_cm / 100;
    const y = -f.stats.y_cm / 100; // SVG's y grows downwards; the sheet's grows upwards
    const facing = ((f.stats.facing || 0) * Math.PI) / 180;
    const r = reachOf(f);
    const side = sides.indexOf(f.side) % 4;
    const cls = `side${side}${f.defeated ? " defeated" : ""}`;
    // Reach: the whole circle, dashed; zone of control: the circle less the 90-degree rear arc.
    const a0 = facing + Math.PI * 0.75;
    const a1 = facing - Math.PI * 0.75;
    const p0 = [x + r * Math.cos(a0), y - r * Math.sin(a0)];
    const p1 = [x + r * Math.cos(a1), y - r * Math.sin(a1)];
    zones.append(
      svg("g", { class: `zone-of ${cls}`, "data-name": f.name },
        svg("circle", { cx: x, cy: y, r, class: "reach" }),
        svg("path", { d: `M ${x} ${y} L ${p0[0]} ${p0[1]} A ${r} ${r} 0 1 1 ${p1[0]} ${p1[1]} Z`, class: "zone" })),
    );
    const token = svg("g", { class: `token ${cls}`, "data-name": f.name });
    const tip = [x + 0.8 * Math.cos(facing), y - 0.8 * Math.sin(facing)];
    token.append(svg("line", { x1: x, y1: y, x2: tip[0], y2: tip[1], class: "facing" }));
    const body = svg("circle", { cx: x, cy: y, r: 0.35, class: "body" });
    // Chromium paints no outline on SVG shapes: this ring shows the keyboard's focus instead.
    token.append(body, svg("circle", { cx: x, cy: y, r: 0.55, class: "focus-ring", "aria-hidden": "true" }));
    bodies.append(token);
    const label = svg("text", { x, y: y + 0.95, class: "name", "data-name": f.name });
    label.textContent = f.name;
    names.append(label);
    if (mover === f.name && send && !f.defeated) {
      const handle = svg("circle", { cx: tip[0], cy: tip[1], r: 0.22, class: "handle", "data-name": f.name });
      token.append(handle);
      makeMovable({ root, token, body, handle, guide, f, view, send, mode, start: [x, -y] });
    }
  }
  fill(node, root, el("p", { class: "map-help hint" }, mover && send ? `Drag ${mover} to move (or focus it and use the arrow keys, Enter to send); drag the small handle to turn.` : ""));
  readableLabels(root, maxX - minX);
}

// The least height on screen, in CSS pixels, of the map's names and of the distances shown
// while dragging (on a phone the map is drawn small: a label of a fixed size in metres is
// too small to read there).
const LEAST_LABEL_PX = { name: 13, distance: 14 };

/** Size the labels in map metres so that none is under LEAST_LABEL_PX on screen. */
function readableLabels(root, widthMetres) {
  const shown = root.getBoundingClientRect().width;
  if (!shown || !widthMetres) return;
  const metresPerPx = widthMetres / shown;
  root.style.setProperty("--name-size", `${Math.max(0.42, LEAST_LABEL_PX.name * metresPerPx)}px`);
  root.style.setProperty("--distance-size", `${Math.max(0.36, LEAST_LABEL_PX.distance * metresPerPx)}px`);
}

/** Pointer position in map metres (y up). */
function toMap(root, ev) {
  const pt = root.createSVGPoint();
  pt.x = ev.clientX;
  pt.y = ev.clientY;
  const p = pt.matrixTransform(root.getScreenCTM().inverse());
  return [p.x, -p.y];
}

function snap(point) {
  return [Math.round(point[0] / SAMPLE) * SAMPLE, Math.round(point[1] / SAMPLE) * SAMPLE];
}

function makeMovable({ root, token, body, handle, guide, f, view, send, mode, start }) {
  const enemies = view.fighters.filter((o) => placedOf(o) && o.side !== f.side && !o.defeated);
  token.classList.add("movable");
  body.setAttribute("tabindex", "0");
  body.setAttribute("role", "button");
  body.setAttribute("aria-label", `Move ${f.name}: arrow keys add 1.5 m squares, Enter sends, Escape cancels; Q and E turn`);
  let drag = null; // { kind: "move" | "turn", path: [[x, y] metres...] }

  const show = (end, path, facingDeg = null) => {
    guide.replaceChildren();
    if (facingDeg !== null) {
      const label = svg("text", { x: start[0], y: -start[1] - 0.6, class: "distance" });
      label.textContent = `facing ${facingDeg}°`;
      guide.append(label);
      return;
    }
    const pts = [start, ...path].map((p) => `${p[0]},${-p[1]}`).join(" ");
    guide.append(svg("polyline", { points: pts, class: "path" }));
    guide.append(svg("circle", { cx: end[0], cy: -end[1], r: 0.35, class: "ghost" }));
    const walked = path.reduce((acc, p, i) => acc + dist(i ? path[i - 1] : start, p), 0);
    const label = svg("text", { x: end[0], y: -end[1] - 0.55, class: "distance", "data-walked": metres(walked) });
    label.textContent = `${metres(walked)} m`;
    guide.append(label);
    for (const o of enemies) {
      const at = [o.stats.x_cm / 100, o.stats.y_cm / 100];
      const d = dist(end, at);
      guide.append(svg("line", { x1: end[0], y1: -end[1], x2: at[0], y2: -at[1], class: "to-enemy" }));
      const t = svg("text", { x: (end[0] + at[0]) / 2, y: -(end[1] + at[1]) / 2 - 0.15, class: "distance enemy", "data-name": o.name });
      t.textContent = `${o.name} ${metres(d)} m`;
      guide.append(t);
    }
  };
  const reset = () => {
    drag = null;
    guide.replaceChildren();
    token.removeAttribute("transform");
    document.body.dataset.mapBusy = "";
  };
  const sendMove = async (path) => {
    if (!path.length) return reset();
    document.body.dataset.mapBusy = "sending";
    const points = path.map((p) => [Math.round(p[0] * 100), Math.round(p[1] * 100)]);
    const facing = facingAfter(path[path.length - 1], enemies);
    const answer = await send(mode(), facing === null ? { path: points } : { path: points, facing });
    if (!answer) reset(); // refused: snap back (the page says why)
  };

  body.addEventListener("pointerdown", (ev) => {
    ev.preventDefault();
    body.setPointerCapture(ev.pointerId);
    drag = { kind: "move", end: start };
    document.body.dataset.mapBusy = "dragging";
  });
  body.addEventListener("pointermove", (ev) => {
    if (!drag || drag.kind !== "move") return;
    drag.end = snap(toMap(root, ev));
    token.setAttribute("transform", `translate(${drag.end[0] - start[0]} ${-(drag.end[1] - start[1])})`);
    show(drag.end, straightPath(start, drag.end).map((p) => [p[0] / 100, p[1] / 100]));
  });
  body.addEventListener("pointerup", () => {
    if (!drag || drag.kind !== "move") return;
    const end = drag.end;
    drag = null;
    if (dist(end, start) < SAMPLE / 2) return reset();
    sendMove(straightPath(start, end).map((p) => [p[0] / 100, p[1] / 100]));
  });
  handle.addEventListener("pointerdown", (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    handle.setPointerCapture(ev.pointerId);
    drag = { kind: "turn", facing: f.stats.facing || 0 };
    document.body.dataset.mapBusy = "dragging";
  });
  handle.addEventListener("pointermove", (ev) => {
    if (!drag || drag.kind !== "turn") return;
    const p = toMap(root, ev);
    const deg = Math.round((Math.atan2(p[1] - start[1], p[0] - start[0]) * 180) / Math.PI / 15) * 15;
    drag.facing = ((deg % 360) + 360) % 360;
    token.setAttribute("transform", `rotate(${-(drag.facing - (f.stats.facing || 0))} ${start[0]} ${-start[1]})`);
    show(start, [], drag.facing);
  });
  handle.addEventListener("pointerup", async () => {
    if (!drag || drag.kind !== "turn") return;
    const facing = drag.facing;
    drag = null;
    if (facing === (f.stats.facing || 0)) return reset();
    document.body.dataset.mapBusy = "sending";
    if (!(await send("face", { facing }))) reset();
  });
  // Keyboard: squares of 1.5 m, sent with Enter.
  let keyed = [];
  body.addEventListener("keydown", (ev) => {
    const moves = { ArrowRight: [SQUARE, 0], ArrowLeft: [-SQUARE, 0], ArrowUp: [0, SQUARE], ArrowDown: [0, -SQUARE] };
    if (moves[ev.key]) {
      ev.preventDefault();
      const last = keyed.length ? keyed[keyed.length - 1] : start;
      if (keyed.length < MAX_PATH) keyed.push([last[0] + moves[ev.key][0], last[1] + moves[ev.key][1]]);
      const end = keyed[keyed.length - 1];
      token.setAttribute("transform", `translate(${end[0] - start[0]} ${-(end[1] - start[1])})`);
      show(end, keyed);
      document.body.dataset.mapBusy = "dragging"; // a move being made: no redraw takes it away
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      const path = keyed;
      keyed = [];
      sendMove(path);
    } else if (ev.key === "Escape") {
      keyed = [];
      reset();
    } else if (ev.key === "q" || ev.key === "e") {
      const facing = ((((f.stats.facing || 0) + (ev.key === "q" ? 45 : -45)) % 360) + 360) % 360;
      send("face", { facing });
    }
  });
  // Leaving the token with a move half made by keys cancels it, as Escape does.
  body.addEventListener("blur", () => {
    if (keyed.length && document.body.dataset.mapBusy === "dragging") {
      keyed = [];
      reset();
    }
  });
}

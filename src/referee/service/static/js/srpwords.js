// SRP movement in plain words for the dice log: "Tarl moves 3 m away from Pa-Kur, facing
// Pa-Kur", "Tarl now faces east (0°)", in metres and compass points, never `path [[-50,0],...]`
// or `x_cm = -200`. `Ground` follows where each fighter stands from the events the log has
// seen (the sheets' x_cm, y_cm and facing; a voided range is taken back), so an action can be
// said against the positions it started from.

/** Compass points every 45 degrees (0 = east, 90 = north, as the sheets count). */
const COMPASS = ["east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"];
const NEAR = 0.005; // metres: closer than this is "the same distance"

const metres = (cm) => `${Math.round(cm) / 100}`;
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const degrees = (from, to) => ((Math.round((Math.atan2(to[1] - from[1], to[0] - from[0]) * 180) / Math.PI) % 360) + 360) % 360;

/** A facing in words: "east (0°)", "north-east (45°)", or "100°" between the points. */
export function facingWords(deg) {
  const d = ((Math.round(deg) % 360) + 360) % 360;
  return d % 45 === 0 ? `${COMPASS[d / 45]} (${d}°)` : `${d}°`;
}

/** Where the fighters of one bout stand, as the log's events say (metres; facing in degrees). */
export class Ground {
  constructor() {
    this.fighters = new Map(); // name -> {side, x, y, facing, defeated}
    this.events = [];
  }

  /** Take one event into account (after the log has said it). */
  see(event) {
    this.events.push(event);
    if (event.type === "voided") this.replay();
    else this.apply(event);
  }

  replay() {
    const gone = (seq) => this.events.some((e) => e.type === "voided" && seq >= e.payload.from && seq <= e.payload.to);
    this.fighters.clear();
    for (const e of this.events) if (e.type !== "voided" && !gone(e.seq)) this.apply(e);
  }

  apply(event) {
    const p = event.payload || {};
    if (event.type === "fighter_added") {
      this.fighters.set(p.name, { side: p.side || p.name, defeated: false });
      this.place(p.name, p.stats);
    } else if (event.type === "fighter_updated" && p.stats) this.place(p.name, p.stats);
    else if (event.type === "fighter_removed") this.fighters.delete(p.name);
    else if (event.type === "defeated" && this.fighters.has(p.name)) this.fighters.get(p.name).defeated = p.defeated !== false;
    else if (event.type === "stat" && ["x_cm", "y_cm", "facing"].includes(p.key)) this.place(p.target, { [p.key]: p.value });
  }

  place(name, stats) {
    const f = this.fighters.get(name);
    if (!f || !stats) return;
    if (Number.isInteger(stats.x_cm)) f.x = stats.x_cm / 100;
    if (Number.isInteger(stats.y_cm)) f.y = stats.y_cm / 100;
    if (Number.isInteger(stats.facing)) f.facing = stats.facing;
  }

  /** Where `name` stands ([x, y] metres), or null when its sheet gives no position. */
  at(name) {
    const f = this.fighters.get(name);
    return f && f.x !== undefined && f.y !== undefined ? [f.x, f.y] : null;
  }

  /** The standing enemy of `name` nearest to `point`: [name, [x, y]], or null. */
  nearestFoe(name, point) {
    const me = this.fighters.get(name);
    let best = null;
    for (const [other, f] of this.fighters) {
      const at = this.at(other);
      if (!me || other === name || f.side === me.side || f.defeated || !at) continue;
      if (!best || dist(point, at) < dist(point, best[1])) best = [other, at];
    }
    return best;
  }

  /** "Pa-Kur" when a fighter at `point` facing `deg` faces that foe, else the compass words. */
  facingFrom(name, point, deg) {
    const foe = this.nearestFoe(name, point);
    return foe && degrees(point, foe[1]) === ((deg % 360) + 360) % 360 ? foe[0] : facingWords(deg);
  }
}

const VERBS = { move: "moves", step: "steps", charge: "charges" };

/** An SRP movement action in words ("Tarl moves 3 m away from Pa-Kur, facing Pa-Kur"), or
 * null for any other action or when the page does not know where the mover stood. */
export function actionWords(event, ground) {
  const p = event.payload || {};
  const options = p.options || {};
  const actor = event.actor;
  const start = ground.at(actor);
  if (p.kind === "face" && Number.isInteger(options.facing) && start) {
    return `${actor} turns to face ${ground.facingFrom(actor, start, options.facing)}`;
  }
  const path = options.path;
  if (!VERBS[p.kind] || !start || !Array.isArray(path) || !path.length) return null;
  const points = path.map((q) => [q[0] / 100, q[1] / 100]);
  const end = points[points.length - 1];
  let walked = 0;
  points.reduce((from, q) => ((walked += dist(from, q)), q), start);
  const foe = ground.nearestFoe(actor, start);
  let where;
  if (foe) {
    const before = dist(start, foe[1]);
    const after = dist(end, foe[1]);
    where = after < before - NEAR ? `toward ${foe[0]}` : after > before + NEAR ? `away from ${foe[0]}` : `around ${foe[0]}`;
  } else {
    where = degrees(start, end) % 45 === 0 ? COMPASS[degrees(start, end) / 45] : `to (${end[0]}, ${end[1]}) m`;
  }
  const facing = Number.isInteger(options.facing) ? `, facing ${ground.facingFrom(actor, end, options.facing)}` : "";
  return `${actor} ${VERBS[p.kind]} ${metres(walked * 100)} m ${where}${facing}`;
}

/** A stat change in words: positions in metres, facing in compass points, any other stat
 * by its name ("Andrea's PM is now 3"). */
export function statWords(payload, ground) {
  const { target, key, value } = payload;
  if (key === "x_cm" && Number.isInteger(value)) return `${target} now stands at x ${metres(value)} m (east-west)`;
  if (key === "y_cm" && Number.isInteger(value)) return `${target} now stands at y ${metres(value)} m (north-south)`;
  if (key === "facing" && Number.isInteger(value)) {
    const at = ground.at(target);
    const said = at ? ground.facingFrom(target, at, value) : facingWords(value);
    return said === facingWords(value) ? `${target} now faces ${said}` : `${target} now faces ${said}, ${facingWords(value)}`;
  }
  if (key === "extra_attack_round") return `${target} has had its extra attack of round ${value} (SRP-15)`;
  if (key === "holds") return value ? `${target} holds ${value}` : `${target} lets go`;
  if (key === "mounted" && typeof value === "boolean") return `${target} is ${value ? "mounted" : "on foot"}`;
  const name = STAT_NAMES[key] || String(key).replaceAll("_", " ");
  const said = typeof value === "string" || Number.isInteger(value) ? String(value) : JSON.stringify(value);
  return `${target}'s ${name} is now ${said}`;
}

/** Stats as the rules name them (SRP-17: PM and Spirit). */
const STAT_NAMES = { pm: "PM", spirit: "Spirit", dam: "DAM" };

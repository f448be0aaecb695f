// What each rule system asks for, as data: the fields of a fighter and the options of each
// action. The forms are built from these lists, so a new option is one line here.
// A field: {key, label, type: number|text|select|checkbox|json|path, options?, min?, max?,
// value?, help?}. An action: {target: whether it names one, fields}.

const SRP_DEFENSES = ["weapon", "shield", "avoid", "none"];

/** SRP conditions as people read them: the words of `referee.systems.srp.actions.Condition`
 * (tests/test_web_words.py holds the two to the same table). */
export const CONDITION_WORDS = {
  disarmed: "disarmed",
  entangled: "entangled",
  entangling: "entangling",
  grappled: "grappled",
  grappling: "grappling",
  stunned: "stunned",
  dismounted: "dismounted",
  lost_action: "loses an action",
  breaking_free: "breaking free",
  in_spirit_combat: "in spirit combat",
};

/** A condition's name in words (`lost_action` -> "loses an action"; others: no underscores). */
export function conditionWords(name) {
  return Object.prototype.hasOwnProperty.call(CONDITION_WORDS, name) ? CONDITION_WORDS[name] : String(name).replaceAll("_", " ");
}

/** SRP actions that use the weapon in hand, and full moves (a minimum move is "step"): the
 * lists of `referee.systems.srp.actions`. */
const SRP_WEAPON_ACTIONS = ["attack", "shoot", "disarm", "entangle", "grapple", "unhorse"];
const SRP_FULL_MOVES = ["move", "charge"];
/** What each SRP condition forbids, and why: `referee.systems.srp.actions.FORBIDS`, word for
 * word (tests/test_web_legal.py holds the two to the same answers). */
export const SRP_FORBIDS = {
  disarmed: [SRP_WEAPON_ACTIONS, "is disarmed: pick the weapon up first"],
  entangled: [SRP_FULL_MOVES, "is entangled: only minimum moves (step)"],
  entangling: [SRP_WEAPON_ACTIONS, "is entangling with its weapon: it cannot use it"],
  grappled: [SRP_FULL_MOVES, "is grappled: only minimum moves (step)"],
  stunned: [["*"], "is stunned: it loses this action"],
  lost_action: [["*"], "loses this action"],
};
/** Melee actions that must reach their target (SRP-15), and the normal reach in cm. */
const SRP_REACHING = ["attack", "disarm", "entangle", "grapple", "unhorse"];
const NORMAL_REACH_CM = 150;

/** Why an SRP fighter may not take `kind` now, from what the page sees (its conditions, its
 * weapon and its codes and range, the positions, a rider), as the service words it; null when the page sees no reason (the
 * service still decides). `target` is the fighter aimed at, or null. */
export function srpRefusal(actor, kind, target) {
  if (!actor || kind === "pass") return null;
  const stats = actor.stats || {};
  const weapon = (Array.isArray(stats.weapons) && stats.weapons[0]) || {};
  for (const condition of Object.keys(actor.conditions || {})) {
    const [forbidden, reason] = SRP_FORBIDS[condition] || [[], ""];
    if (forbidden.includes("*") || forbidden.includes(kind)) return `${actor.name} ${reason}`;
    if (condition === "grappled" && SRP_WEAPON_ACTIONS.includes(kind) && Number(weapon.hands || 1) > 1) {
      return `${actor.name} is grappled: only one-handed weapons`;
    }
  }
  if (!target || !(SRP_REACHING.includes(kind) || kind === "shoot")) return null;
  const name = weapon.name || "unarmed";
  const missile = Number.isInteger(weapon.effective_range_cm);
  if (kind === "attack" && missile && !weapon.thrown) return `the ${name} is a missile weapon: use 'shoot'`;
  if (kind === "shoot" && !missile) return `the ${name} is not a missile weapon (it has no range)`;
  const placed = (f) => f.stats && Number.isInteger(f.stats.x_cm) && Number.isInteger(f.stats.y_cm);
  const both = placed(actor) && placed(target);
  // Grid distance (SRP-14): the larger of the two offsets.
  const gap = both ? Math.max(Math.abs(target.stats.x_cm - stats.x_cm), Math.abs(target.stats.y_cm - stats.y_cm)) : null;
  if (kind === "shoot") {
    const effective = weapon.effective_range_cm || 0;
    const longest = weapon.long_range_cm || effective;
    return both && gap > effective && gap > longest ? `${target.name} is ${gap / 100} m away, beyond the ${name}'s range` : null;
  }
  // Long weapons strike only beyond 1.5 m, up to their reach (SRP-15).
  const reach = Number.isInteger(weapon.reach_cm) ? weapon.reach_cm : NORMAL_REACH_CM;
  const long = reach > NORMAL_REACH_CM;
  if (both && !(long ? gap > NORMAL_REACH_CM && gap <= reach : gap > 0 && gap <= NORMAL_REACH_CM)) {
    const band = long ? "beyond 1.5 m up to" : "up to";
    return `${target.name} is ${gap / 100} m from ${actor.name}; the ${name} reaches ${band} ${reach / 100} m (SRP-15)`;
  }
  // A special action needs its code on the weapon (SRP-16); unhorsing, a mounted defender.
  const code = SRP_SPECIAL_CODES[kind];
  if (code && !(weapon.codes || []).includes(code)) {
    const codes = [...(weapon.codes || [])].sort().join(", ") || "none";
    return `${kind} needs a weapon with code '${code}'; '${name}' has ${codes}`;
  }
  if (kind === "unhorse" && !(target.stats && target.stats.mounted === true)) return "unhorse needs a mounted defender";
  return null;
}

/** The weapon code each SRP special action needs (SRP-16). */
const SRP_SPECIAL_CODES = { disarm: "D", entangle: "E", grapple: "G", unhorse: "U" };

/** MSV (MSV-1..7): a fighter is a Combat Skill; the one action is an attack on a target. */
const MSV = {
  name: "msv",
  title: "MSV (1d100 Combat Skill)",
  /** What a sentence calls one wound and several (as `MsvSystem.wound_words`). */
  wounds: ["damage", "damage"],
  fighter: [
    { key: "cs", label: "Combat Skill (CS)", type: "number", min: 0, max: 1000, value: 65, required: true },
  ],
  body(values) {
    return { cs: values.cs };
  },
  actions: { attack: { target: true, fields: [] } },
  targetInfo: () => "",
  refusal: () => null,
};

// Fields marked `referee: true` are the referee's terms (the service refuses them from a
// fighter's token with 403), so only the referee's page shows them.
const SRP_STRIKE = [
  { key: "defend", label: "Defense", type: "select", options: ["", ...SRP_DEFENSES], help: "empty: the defender's usual defense", referee: true },
  { key: "rear", label: "Rear attack (+4, SRP-14; from positions when both are placed)", type: "checkbox", referee: true },
  { key: "modifier", label: "Modifier (SRP-6)", type: "number", min: -50, max: 50, referee: true },
];
const SRP_PATH = [
  { key: "path", label: "Path: x,y in metres per square, e.g. 1.5,0; 3,0", type: "path", required: true },
  { key: "facing", label: "Facing at the end (degrees; empty: the way of the last step)", type: "number", min: -360, max: 360 },
];

/** SRP (SRP-4..16): a sheet; melee attacks with the defender's defense, shield, armor, rear. */
const SRP = {
  name: "srp",
  title: "SRP (Simple Role Playing)",
  wounds: ["hit", "hits"],
  conditions: CONDITION_WORDS,
  fighter: [
    { key: "hits", label: "Hit total", type: "number", min: 1, max: 1000, value: 12, required: true },
    { key: "weapon", label: "Weapon", type: "text", value: "broadsword" },
    { key: "damage", label: "Weapon damage", type: "number", min: -10, max: 50, value: 3 },
    { key: "reach", label: "Reach (m, SRP-15)", type: "select", options: ["1.5", "3", "4.5"], value: "1.5" },
    { key: "codes", label: "Weapon codes (D, E, G, S*, U)", type: "text" },
    { key: "skill", label: "Weapon skill", type: "number", min: 0, max: 60, value: 15 },
    { key: "defense", label: "Defense skill", type: "number", min: 0, max: 60, value: 10 },
    { key: "avoid", label: "Avoid skill", type: "number", min: 0, max: 60 },
    { key: "defend", label: "Usual defense", type: "select", options: SRP_DEFENSES, value: "weapon" },
    { key: "dam", label: "DAM", type: "number", min: -10, max: 50, value: 0 },
    { key: "armor", label: "Armor AP", type: "number", min: 0, max: 100, value: 0 },
    { key: "shield", label: "Shield (or notation .4. (6) [8])", type: "text", suggest: ["buckler", "medium", "large", "pavise"] },
    { key: "spirit", label: "Spirit (SRP-17)", type: "number", min: 0, max: 100 },
    { key: "pm", label: "PM (empty: a spirit creature's, equal to its Spirit)", type: "number", min: -1, max: 100 },
    { key: "x", label: "Position x (m)", type: "number", step: "0.5", min: -1000, max: 1000 },
    { key: "y", label: "Position y (m)", type: "number", step: "0.5", min: -1000, max: 1000 },
    { key: "facing", label: "Facing (degrees, 0 = east, 90 = north)", type: "number", min: 0, max: 359 },
  ],
  /** The form's values as the bout's SRP stats (lengths in whole centimetres). */
  body(v) {
    const name = v.weapon || "unarmed";
    const weapon = { name, damage: v.damage || 0, reach_cm: Math.round(Number(v.reach || 1.5) * 100) };
    if (v.codes) weapon.codes = v.codes.split(/[\s,]+/).filter(Boolean);
    const sheet = { hits: v.hits, weapons: [weapon], skills: { [name]: v.skill || 0 } };
    for (const key of ["defense", "avoid", "defend", "dam", "armor", "shield", "facing", "spirit", "pm"]) {
      if (v[key] !== undefined) sheet[key] = v[key];
    }
    // A spirit creature's PM starts equal to its Spirit (SRP-17).
    if (v.spirit !== undefined && v.pm === undefined) sheet.pm = v.spirit;
    if (v.x !== undefined || v.y !== undefined) {
      sheet.x_cm = Math.round((v.x || 0) * 100);
      sheet.y_cm = Math.round((v.y || 0) * 100);
    }
    return { sheet };
  },
  hideable: ["skills", "defense", "avoid", "armor", "pm", "spirit"],
  /** The referee reviews each roll and may override an outcome (SRP-20). */
  overrides: true,
  actions: {
    attack: { target: true, fields: SRP_STRIKE },
    shoot: {
      target: true,
      fields: [
        { key: "fire", label: "Fire (SRP-13)", type: "select", options: ["aimed", "rapid"] },
        { key: "range", label: "Range (when not placed)", type: "select", options: ["", "effective", "long"], referee: true },
        { key: "modifier", label: "Modifier", type: "number", min: -50, max: 50, referee: true },
      ],
    },
    disarm: { target: true, fields: SRP_STRIKE },
    entangle: { target: true, fields: SRP_STRIKE },
    grapple: { target: true, fields: SRP_STRIKE },
    unhorse: { target: true, fields: SRP_STRIKE },
    break_free: { target: false, fields: [] },
    pick_up: { target: false, fields: [] },
    release: { target: false, fields: [] },
    move: { target: false, fields: SRP_PATH },
    step: { target: false, fields: SRP_PATH },
    charge: { target: false, fields: SRP_PATH },
    face: { target: false, fields: [{ key: "facing", label: "Facing (degrees)", type: "number", min: -360, max: 360, required: true }] },
    spirit: {
      target: true,
      fields: [{ key: "helpers", label: "Helpers (allies, +1 each; comma-separated)", type: "list" }],
    },
    pass: { target: false, fields: [] },
  },
  /** Why an action cannot be taken now (reach, conditions), or null: the button waits. */
  refusal: srpRefusal,
  /** What the attacker sees of the target's defense (hidden stats stay hidden). */
  targetInfo(f) {
    const s = f.stats || {};
    const parts = [`defends with ${s.defend || "weapon"}`];
    if (s.shield) parts.push(`shield ${s.shield}`);
    if (s.armor !== undefined) parts.push(`armor ${s.armor} AP`);
    return `${f.name} ${parts.join(", ")}.`;
  },
};

/** Any other system: stats as a JSON object, actions with free JSON options. */
const GENERIC = {
  name: "",
  title: "",
  fighter: [{ key: "sheet", label: "Stats (JSON object)", type: "json", value: "{}" }],
  body(values) {
    return { sheet: values.sheet || {} };
  },
  actions: { attack: { target: true, fields: [] } },
  targetInfo: () => "",
  refusal: () => null,
};

export const SYSTEMS = { msv: MSV, srp: SRP };

/** The spec of a system by name (a generic one for systems this page does not know). */
export function systemSpec(name) {
  return SYSTEMS[name] || { ...GENERIC, name, title: name };
}

/** Read a field's control into a value; undefined when left empty. */
export function readField(field, control) {
  if (field.type === "checkbox") return control.checked ? true : undefined;
  const raw = control.value.trim();
  if (raw === "") return undefined;
  if (field.type === "number") {
    const n = Number(raw);
    if (!Number.isFinite(n)) throw new Error(`${field.label}: ${JSON.stringify(raw)} is not a number`);
    return n;
  }
  if (field.type === "path") return readPath(field, raw);
  if (field.type === "list") return raw.split(",").map((t) => t.trim()).filter(Boolean);
  if (field.type === "json") {
    try {
      return JSON.parse(raw);
    } catch (err) {
      throw new Error(`${field.label}: not valid JSON (${err.message})`);
    }
  }
  return raw;
}

/** "1.5,0; 3,0" (metres) -> [[150, 0], [300, 0]] (whole centimetres, as SRP paths are). */
function readPath(field, raw) {
  return raw.split(";").map((point) => {
    const xy = point.split(",").map((t) => Number(t.trim()));
    if (xy.length !== 2 || !xy.every(Number.isFinite)) {
      throw new Error(`${field.label}: ${JSON.stringify(point.trim())} is not x,y in metres`);
    }
    return xy.map((m) => Math.round(m * 100));
  });
}

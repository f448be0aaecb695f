// A small JSON Schema (2020-12) checker for the subset the referee's event schema uses
// (static/schema/events.json, made from referee.payloads): type, enum, const, properties,
// required, additionalProperties, items, minItems, maxItems, minimum, pattern, $ref to $defs,
// anyOf, allOf, if/then. The browser verifier's tests check every event of the vectors with it.

const TYPES = {
  null: (v) => v === null,
  boolean: (v) => typeof v === "boolean",
  integer: (v) => typeof v === "number" && Number.isInteger(v),
  number: (v) => typeof v === "number",
  string: (v) => typeof v === "string",
  array: (v) => Array.isArray(v),
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
};

const KNOWN = new Set([
  "$schema", "$id", "title", "description", "type", "enum", "const", "properties", "required",
  "additionalProperties", "items", "minItems", "maxItems", "minimum", "pattern", "$ref", "anyOf",
  "allOf", "if", "then", "$defs", "x-visibility", "x-owner", "x-stat", "x-stat-field",
  "x-outcomes", "x-initiatives",
]);

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether `value` is valid against `schema` (inside the document `root`, for $ref). */
export function valid(schema, value, root = schema) {
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) throw new Error(`schema keyword ${key} is not one this checker knows`);
  }
  if (schema.$ref) {
    const name = schema.$ref.replace(/^#\/\$defs\//, "");
    if (!(name in root.$defs)) throw new Error(`no $defs entry ${name}`);
    if (!valid(root.$defs[name], value, root)) return false;
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => TYPES[t](value))) return false;
  }
  if (schema.enum && !schema.enum.some((v) => same(v, value))) return false;
  if ("const" in schema && !same(schema.const, value)) return false;
  if (schema.minimum !== undefined && typeof value === "number" && value < schema.minimum) return false;
  if (schema.pattern !== undefined && typeof value === "string" && !new RegExp(schema.pattern, "u").test(value)) return false;
  if (TYPES.array(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return false;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return false;
    if (schema.items && !value.every((v) => valid(schema.items, v, root))) return false;
  }
  if (TYPES.object(value)) {
    for (const key of schema.required || []) if (!(key in value)) return false;
    for (const [key, v] of Object.entries(value)) {
      const inner = schema.properties && schema.properties[key];
      if (inner !== undefined) {
        if (!valid(inner, v, root)) return false;
      } else if (schema.additionalProperties !== undefined && !valid(schema.additionalProperties, v, root)) {
        return false;
      }
    }
  }
  if (schema.anyOf && !schema.anyOf.some((s) => valid(s, value, root))) return false;
  if (schema.allOf && !schema.allOf.every((s) => valid(s, value, root))) return false;
  if (schema.if && valid(schema.if, value, root) && schema.then && !valid(schema.then, value, root)) return false;
  return true;
}

/** Each event of an export checked: the event with its type's payload, an outcome's and an
 * initiative's rule-system part by the system the bout opened with. */
export function checkEvents(schema, doc) {
  const events = Array.isArray(doc.events) ? doc.events : [];
  const opened = events.find((e) => e && e.type === "bout_opened");
  const system = opened && opened.payload ? opened.payload.system : undefined;
  return events.map((event) => {
    if (!valid(schema, event)) return false;
    const p = event.payload;
    if (event.type === "outcome") {
      const part = (schema["x-outcomes"][system] || {})[p.kind];
      return part === undefined || valid(part, p, schema);
    }
    if (event.type === "initiative") {
      const part = schema["x-initiatives"][system];
      return part === undefined || valid(part, p.detail, schema);
    }
    return true;
  });
}

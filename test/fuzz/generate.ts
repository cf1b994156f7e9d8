/**
 * Request generation for the fuzzer: values from a JSON Schema (valid-ish), then mutations
 * (wrong types, missing and extra fields, extreme numbers, unicode and NUL, long strings), all
 * from a seeded PRNG so a failure replays from its seed.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is walked as plain JSON
export type Schema = any;

export interface Rng {
  next(): number;
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    chance: (p) => next() < p,
  };
}

export const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "😀🎬",
  "\u202eevil",
  "e\u0301",
  "'; DROP TABLE wallets; --",
  "../../etc/passwd",
  "%00",
  "%C0%AF",
  "<script>alert(1)</script>",
  "x".repeat(10_000),
  "pmk_00000000000000000000000000000000000000000",
];

export const NASTY_NUMBERS = [0, -1, -0.5, 0.5, 1e308, -1e308, 2 ** 53, 2 ** 63, 4.7, 99999999999];

/** Resolves a local $ref. */
export function resolve(doc: Schema, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) s = doc.components.schemas[s.$ref.split("/").pop()];
  return s;
}

/** A value that fits the schema as far as this simple walker understands it. */
export function valueFor(doc: Schema, raw: Schema, r: Rng, depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (!schema || depth > 6) return null;
  if (schema.example !== undefined && r.chance(0.5)) return structuredClone(schema.example);
  if (schema.enum) return r.pick(schema.enum);
  if (schema.const !== undefined) return schema.const;
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return valueFor(doc, r.pick(options), r, depth + 1);
  const type = Array.isArray(schema.type) ? r.pick(schema.type) : schema.type;
  switch (type) {
    case "integer":
    case "number": {
      const min = schema.minimum ?? 0;
      const max = schema.maximum ?? min + 1000;
      const v = min + r.next() * (max - min);
      return type === "integer" ? Math.round(v) : v;
    }
    case "boolean":
      return r.chance(0.5);
    case "string":
      if (schema.format === "email") return `u${r.int(1000)}@example.com`;
      return `s${r.int(100000)}`;
    case "array":
      return Array.from({ length: r.int(3) }, () => valueFor(doc, schema.items, r, depth + 1));
    case "null":
      return null;
    default: {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(k) || r.chance(0.5)) {
          out[k] = valueFor(doc, v, r, depth + 1);
        }
      }
      return out;
    }
  }
}

/** One mutation of a (usually object) value. */
export function mutate(value: unknown, r: Rng): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return r.pick(weird());
  const obj = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(obj);
  const key = keys.length > 0 ? r.pick(keys) : "field";
  switch (r.int(6)) {
    case 0:
      delete obj[key];
      break;
    case 1:
      obj[`extra_${r.int(100)}`] = r.pick(weird());
      break;
    case 2:
      obj[key] = r.pick(NASTY_NUMBERS);
      break;
    case 3:
      obj[key] = r.pick(NASTY_STRINGS);
      break;
    case 4:
      obj[key] = r.pick(weird());
      break;
    default:
      obj[r.pick(NASTY_STRINGS).slice(0, 20) || "k"] = r.pick(NASTY_STRINGS);
  }
  return obj;
}

function weird(): unknown[] {
  return [
    null,
    true,
    [],
    {},
    [1, "a"],
    { nested: { deep: [null] } },
    ...NASTY_NUMBERS,
    ...NASTY_STRINGS,
  ];
}

/** How deep the fuzzer nests: far past INPUT_MAX_DEPTH, and past what a recursive walk survives. */
const DEEP = 5000;

/**
 * JSON nested 5,000 levels deep (about 10 KB; a recursive walk of the input overflowed the stack
 * near 4,000): arrays, objects, and a field of an object holding the arrays.
 */
export const DEEP_BODIES = {
  arrays: `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`,
  objects: `${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`,
  field: `{"prompt":${"[".repeat(DEEP)}${"]".repeat(DEEP)}}`,
};

/** Bodies that are not the JSON the endpoint wants at all. */
export const RAW_BODIES = [
  "{bad",
  "[]",
  "null",
  "42",
  '"str"',
  "",
  '{"a":',
  "\u0000",
  ...Object.values(DEEP_BODIES),
];

/**
 * A contract's input and output as JSON Schema (draft-07, the dialect MCP clients validate
 * with), for tool listings. Inputs carry every field's description, real bounds and default;
 * outputs are true but lean — the answer's fields by name, open to additive fields, without the
 * prose the tool's description and the inputs already give — so `tools/list` stays under its
 * budget (16,000 characters for every tool: test/mcp/tools-size.test.ts).
 */
import { z } from "@hono/zod-openapi";
import type { AnyContract } from "./operation.js";

type Json = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/** zod's integers say ±2^53 unless a real bound was given: those say nothing, so they go. */
function dropSafeBounds(node: Json): void {
  if (node.minimum === -SAFE) delete node.minimum;
  if (node.maximum === SAFE) delete node.maximum;
}

/** `anyOf: [{type: T}, {type: "null"}]` → `type: [T, "null"]` when T is a bare type. */
function flattenNullable(node: Json): void {
  const any = node.anyOf;
  if (!Array.isArray(any) || any.length !== 2) return;
  const [a, b] = any as Json[];
  const isNull = (x: Json | undefined) => x?.type === "null" && Object.keys(x).length === 1;
  const other = isNull(b) ? a : isNull(a) ? b : undefined;
  if (!other || typeof other.type !== "string") return;
  delete node.anyOf;
  Object.assign(node, other, { type: [other.type, "null"] });
}

function walk(node: unknown, visit: (n: Json, depth: number) => void, depth = 0): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit, depth);
    return;
  }
  const obj = node as Json;
  visit(obj, depth);
  for (const [key, value] of Object.entries(obj)) {
    walk(value, visit, key === "properties" || key === "items" ? depth + 1 : depth);
  }
}

/** A union of objects listed by field name becomes one object with every name (lean, still true). */
function mergeObjectUnions(node: unknown): void {
  walk(node, (n) => {
    const any = n.anyOf;
    if (!Array.isArray(any) || !any.every((x: Json) => x.type === "object" && x.properties)) return;
    const names = new Set(any.flatMap((x: Json) => Object.keys(x.properties as Json)));
    delete n.anyOf;
    n.type = "object";
    n.properties = Object.fromEntries([...names].map((name) => [name, {}]));
  });
}

/** An e-mail field says `format: email`; its long pattern repeats it. */
function dropPatternBesideFormat(node: Json): void {
  if (node.format && node.pattern) delete node.pattern;
}

function toJson(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, { target: "draft-7", io }) as Json;
  delete out.$schema;
  walk(out, (n) => {
    flattenNullable(n);
    dropSafeBounds(n);
    dropPatternBesideFormat(n);
  });
  return out;
}

/** A default the description already states ("Default enhanced.") is said once. */
function dropDefaultInDescription(node: Json): void {
  if (node.default !== undefined && /\bDefault\b/.test(String(node.description ?? ""))) {
    delete node.default;
  }
}

/**
 * JSON Schema of what a caller may send (the tool's extra arguments merged by the surface).
 * Examples are for the REST document; unknown fields are refused by the operation itself (with
 * the field named), so `additionalProperties` need not be said in every listing.
 */
export function inputJsonSchema(schema: z.ZodObject): Json {
  const out = toJson(schema, "input");
  delete out.additionalProperties;
  walk(out, (n) => {
    delete n.example;
    delete n.examples;
    dropDefaultInDescription(n);
  });
  return out;
}

/** JSON Schema of a contract's answer (with its 202 form, if any), lean and open to additions. */
export function outputJsonSchema(contract: AnyContract): Json {
  const accepted = contract.rest?.accepted?.schema;
  const schema = accepted ? z.union([contract.output, accepted]) : contract.output;
  const out = toJson(schema, "output");
  walk(out, (n) => {
    delete n.additionalProperties;
    delete n.propertyNames;
    delete n.description;
    delete n.examples;
    delete n.enum;
    // `required` lists the fields again: an answer always has them, and the names are listed.
    delete n.required;
  });
  mergeObjectUnions(out);
  // The answer's fields by name only: every answer shows them with their values, and the REST
  // document describes them. A resource in the answer (a job, a wallet) is not spelled out:
  // listing its ~30 names in each of a dozen tools cost a quarter of tools/list.
  walk(out, (n, depth) => {
    if (depth === 1) for (const key of Object.keys(n)) delete n[key];
  });
  // MCP wants an object schema at the top; a union of objects still is one.
  if (out.type === undefined) out.type = "object";
  return out;
}

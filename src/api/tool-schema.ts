/**
 * A contract's input and output as JSON Schema (draft-07, the dialect MCP clients validate
 * with), for tool listings. Inputs carry every field's description, real bounds and default;
 * outputs are true but lean — the answer's fields by name, open to additive fields, without the
 * prose the tool's description and the inputs already give — so `tools/list` stays under its
 * budget (16,000 characters for every tool: test/mcp/tools-size.test.ts).
 */
import { z } from "@hono/zod-openapi";
import { isRecord, type JsonRecord, recordOf, recordsOf } from "../domain/records.js";
import type { AnyContract } from "./operation.js";

type Json = JsonRecord;

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
  const [a, b] = any;
  if (!isRecord(a) || !isRecord(b)) return;
  const isNull = (x: Json) => x.type === "null" && Object.keys(x).length === 1;
  const other = isNull(b) ? a : isNull(a) ? b : undefined;
  if (!other || typeof other.type !== "string") return;
  delete node.anyOf;
  Object.assign(node, other, { type: [other.type, "null"] });
}

function walk(node: unknown, visit: (n: Json, depth: number) => void, depth = 0): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit, depth);
    return;
  }
  if (!isRecord(node)) return;
  visit(node, depth);
  for (const [key, value] of Object.entries(node)) {
    walk(value, visit, key === "properties" || key === "items" ? depth + 1 : depth);
  }
}

/** An e-mail field says `format: email`; its long pattern repeats it. */
function dropPatternBesideFormat(node: Json): void {
  if (node.format && node.pattern) delete node.pattern;
}

function toJson(schema: z.ZodType, io: "input" | "output"): Json {
  const out: Json = z.toJSONSchema(schema, { target: "draft-7", io });
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

/** The JSON types a schema node admits; undefined when it does not say (then any). */
function typesOf(node: Json): string[] | undefined {
  if (typeof node.type === "string") return [node.type];
  if (Array.isArray(node.type)) return node.type.filter((t) => typeof t === "string");
  const any = node.anyOf ?? node.oneOf;
  if (!Array.isArray(any)) return undefined;
  const all: string[] = [];
  for (const variant of any) {
    const types = isRecord(variant) ? typesOf(variant) : undefined;
    if (!types) return undefined;
    all.push(...types);
  }
  return [...new Set(all)];
}

/** `{type}` of a field: its type(s) only, or `{}` (any) when the schema does not say one. */
function fieldType(node: Json): Json {
  const types = typesOf(node);
  if (!types) return {};
  return { type: types.length === 1 ? types[0] : types };
}

/** The top-level objects of an answer: one object, or each variant of a union. */
function answerObjects(root: Json): Json[] {
  const any = root.anyOf ?? root.oneOf;
  return Array.isArray(any) ? recordsOf(any) : [root];
}

/**
 * JSON Schema of a contract's answer (with its 202 form, if any): the REST answer's fields,
 * each with its JSON type(s) (`null` included where it may be null) — the answer every tool
 * result's `structuredContent` is, so the official clients' validation of it holds. Lean for
 * the tools/list budget: a resource inside the answer (a job, a clip, a wallet) is typed as an
 * object, not spelled out field by field (the tool's description and text content name what
 * matters, and the REST document has every field); no prose, no `required` (open to additive
 * fields). A union of answers lists every field any of them has.
 */
export function outputJsonSchema(contract: AnyContract): Json {
  const accepted = contract.rest?.accepted?.schema;
  const schema = accepted ? z.union([contract.output, accepted]) : contract.output;
  const root = toJson(schema, "output");
  const fields = new Map<string, unknown[]>();
  for (const variant of answerObjects(root)) {
    for (const [name, node] of Object.entries(recordOf(variant.properties))) {
      fields.set(name, [...(fields.get(name) ?? []), node]);
    }
  }
  const properties: Record<string, Json> = {};
  for (const [name, nodes] of fields) properties[name] = fieldType({ anyOf: nodes });
  return { type: "object", properties };
}

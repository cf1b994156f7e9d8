/**
 * Writes packages/client/src/generated.ts: the typed table of every REST operation for
 * `@kinora/client`, generated from what the server itself serves — the OpenAPI document at
 * /openapi.json (built in-process on a fresh test app, as src/http/openapi-doc.test.ts does) —
 * plus the one fact the document does not carry, which operations move money (a contract's
 * `policies.spends`), read from the contracts in src/api/contracts. Nothing is hand-copied: a
 * changed contract changes the document, and test/client/generated.test.ts fails until this is
 * run again.
 *
 * Usage: npx tsx scripts/gen-client.ts            (writes the file)
 *        npx tsx scripts/gen-client.ts --check    (exit 1 when the committed file is stale)
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ERROR_CODES as ERROR_TABLE_ROWS } from "../src/domain/error-codes.js";
import { FADE_HINTS } from "../src/domain/fade.js";
import { CLIP_FINAL } from "../src/kinds/clips/rules/transitions.js";
import { QUALITY_LABELS } from "../src/kinds/restore/rules/quality-names.js";
import { RESTORE_FINAL } from "../src/kinds/restore/rules/transitions.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Where the generated module lives. */
export const GENERATED_PATH = path.join(root, "packages/client/src/generated.ts");

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any;

/** What the generator needs of a contract: its id, whether it spends, and its auth mode. */
export interface ContractFacts {
  id: string;
  spends: boolean;
  auth: string;
}

/**
 * Every contract module: src/api/contracts/*.ts and each kind's src/kinds/<kind>/api/contracts.ts
 * and api/*-contracts.ts (a kind's operations on one of its parts, e.g. upload-contracts.ts).
 */
function contractFiles(): string[] {
  const shared = path.join(root, "src/api/contracts");
  const kinds = path.join(root, "src/kinds");
  return [
    ...readdirSync(shared)
      .filter((f) => /\.ts$/.test(f) && !/\.test\.ts$/.test(f))
      .map((f) => path.join(shared, f)),
    ...readdirSync(kinds, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(kinds, d.name, "api")))
      .flatMap((d) =>
        readdirSync(path.join(kinds, d.name, "api"))
          .filter((f) => /^(.+-)?contracts\.ts$/.test(f))
          .map((f) => path.join(kinds, d.name, "api", f)),
      ),
  ];
}

/** The contracts with a REST binding, by operation id, from every contract module. */
export async function loadContracts(): Promise<Map<string, ContractFacts>> {
  const out = new Map<string, ContractFacts>();
  for (const file of contractFiles()) {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, Json>;
    for (const value of Object.values(mod)) {
      if (value && typeof value === "object" && typeof value.id === "string" && value.rest) {
        out.set(value.id, {
          id: value.id,
          spends: Boolean(value.policies?.spends),
          auth: String(value.auth),
        });
      }
    }
  }
  return out;
}

/** The OpenAPI document the server serves, from a fresh in-process app with every feature. */
export async function buildOpenApiDocument(): Promise<Json> {
  const { createTestApp } = await import("../test/app.js");
  const { FEATURES } = await import("../src/features.js");
  const t = await createTestApp({ features: FEATURES });
  try {
    const res = await t.call("GET", "/openapi.json");
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    return res.body;
  } finally {
    await t.close();
  }
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (IDENT.test(name) ? name : JSON.stringify(name));
const refName = (ref: string) => ref.replace(/^#\/components\/schemas\//, "");

/** A JSDoc comment from a description, indented; empty when there is none. */
function doc(text: unknown, indent: string): string {
  if (typeof text !== "string" || text.trim() === "") return "";
  const lines = text.replace(/\*\//g, "*\\/").split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

/** The TypeScript type of a JSON Schema (the subset zod-to-openapi emits). */
export function tsType(schema: Json, indent = ""): string {
  if (schema === undefined || schema === true || schema === null) return "unknown";
  if (schema === false) return "never";
  if (schema.$ref) return `Schemas[${JSON.stringify(refName(schema.$ref))}]`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) {
    const literals = schema.enum.map((v: unknown) => JSON.stringify(v));
    return schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))
      ? [...literals, "null"].join(" | ")
      : literals.join(" | ");
  }
  if (Array.isArray(schema.allOf)) {
    return schema.allOf.map((s: Json) => paren(tsType(s, indent))).join(" & ");
  }
  for (const union of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[union])) {
      return [...new Set(schema[union].map((s: Json) => paren(tsType(s, indent))))].join(" | ");
    }
  }
  const types: string[] = Array.isArray(schema.type)
    ? schema.type
    : schema.type
      ? [schema.type]
      : schema.properties
        ? ["object"]
        : [];
  if (types.length === 0) return "unknown";
  return types.map((t) => paren(single(t, schema, indent))).join(" | ");
}

const paren = (t: string) => (/^[^{]*[|&]/.test(t) && !t.startsWith("{") ? `(${t})` : t);

function single(type: string, schema: Json, indent: string): string {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${paren(tsType(schema.items, indent))}[]`;
    case "object":
      return objectType(schema, indent);
    default:
      return "unknown";
  }
}

function objectType(schema: Json, indent: string): string {
  const props = Object.entries((schema.properties ?? {}) as Record<string, Json>);
  const required = new Set<string>(schema.required ?? []);
  const extra = schema.additionalProperties;
  if (props.length === 0) {
    if (extra && typeof extra === "object") return `Record<string, ${tsType(extra, indent)}>`;
    return extra === false ? "Record<string, never>" : "Record<string, unknown>";
  }
  const inner = `${indent}  `;
  const lines = props.map(
    ([name, s]) =>
      `${doc(s.description, inner)}${inner}${key(name)}${required.has(name) ? "" : "?"}: ${tsType(s, inner)};`,
  );
  if (extra && typeof extra === "object") lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join("\n")}\n${indent}}`;
}

interface Param {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Json;
}

/** One operation's input: path and query parameters and the JSON body's fields, one object. */
function inputType(op: Json, params: Param[]): string {
  const parts: string[] = [];
  if (params.length > 0) {
    const lines = params.map(
      (p) =>
        `${doc(p.description, "      ")}      ${key(p.name)}${p.required ? "" : "?"}: ${tsType(p.schema, "      ")};`,
    );
    parts.push(`{\n${lines.join("\n")}\n    }`);
  }
  const body = op.requestBody?.content?.["application/json"]?.schema;
  if (body) {
    const t = paren(tsType(body, "    "));
    // An optional body whose fields are all optional already is just those fields.
    parts.push(op.requestBody.required ? t : `Partial<${t}>`);
  }
  return parts.length === 0 ? "Record<string, never>" : parts.join(" & ");
}

/** The union of the 2xx JSON answers. */
function outputType(op: Json): string {
  const ok = Object.entries((op.responses ?? {}) as Record<string, Json>).filter(([s]) =>
    /^2\d\d$/.test(s),
  );
  const types = ok.map(([, r]) => {
    const schema = r.content?.["application/json"]?.schema;
    return schema ? paren(tsType(schema, "    ")) : "undefined";
  });
  return types.length === 0 ? "undefined" : [...new Set(types)].join(" | ");
}

/** The error codes an operation documents (its error answers' examples are keyed by code). */
function errorCodes(op: Json, all: string[]): string[] {
  const codes = new Set<string>();
  for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
    if (/^2/.test(status)) continue;
    const examples = r.content?.["application/json"]?.examples ?? {};
    for (const code of Object.keys(examples)) if (all.includes(code)) codes.add(code);
  }
  return [...codes].sort();
}

/** The source of generated.ts for this document and these contracts. */
export function renderGenerated(docJson: Json, contracts: Map<string, ContractFacts>): string {
  const schemas = (docJson.components?.schemas ?? {}) as Record<string, Json>;
  const allCodes: string[] = schemas.Error?.properties?.code?.enum ?? [];
  const ops: { id: string; method: string; path: string; op: Json; params: Param[] }[] = [];
  for (const [p, item] of Object.entries(docJson.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op?.operationId || !contracts.has(op.operationId)) continue;
      const params = ((op.parameters ?? []) as Param[]).filter(
        (x) => x.in === "path" || x.in === "query",
      );
      ops.push({ id: op.operationId, method: method.toUpperCase(), path: p, op, params });
    }
  }
  ops.sort((a, b) => a.id.localeCompare(b.id));

  const out: string[] = [];
  out.push(
    "// Generated by scripts/gen-client.ts from the server's OpenAPI document and its contracts",
    "// (src/api/contracts). Do not edit: run `npm run gen:client` after changing a contract.",
    `// ${docJson.info?.title ?? "kinora"} ${docJson.info?.version ?? ""}`.trimEnd(),
    "",
    "/** Every machine-readable error code the server answers (its closed table). */",
    `export const ERROR_CODES = ${JSON.stringify(allCodes)} as const;`,
    "",
    "/** One of the server's error codes. */",
    "export type ErrorCode = (typeof ERROR_CODES)[number];",
    "",
    "/**",
    " * Each code's row of the server's table: its HTTP status, the exit code the `kinora` command",
    " * line ends with (1 other refusal, 3 refused or not enough money, 4 server), and its meaning.",
    " */",
    `export const ERROR_TABLE: Record<ErrorCode, { status: number; exit: 1 | 3 | 4; meaning: string }> = ${JSON.stringify(
      Object.fromEntries(
        allCodes.map((c) => [c, ERROR_TABLE_ROWS[c as keyof typeof ERROR_TABLE_ROWS]]),
      ),
    )};`,
    "",
    "/** The named schemas of the OpenAPI document (components.schemas). */",
    "export interface Schemas {",
  );
  for (const [name, schema] of Object.entries(schemas)) {
    out.push(`${doc(schema.description, "  ")}  ${key(name)}: ${tsType(schema, "  ")};`);
  }
  out.push("}", "");
  for (const name of Object.keys(schemas)) {
    if (IDENT.test(name)) out.push(`export type ${name} = Schemas[${JSON.stringify(name)}];`);
  }
  out.push(
    "",
    "/** Statuses after which nothing more happens to a restore (the server's final list). */",
    `export const FINAL_RESTORE_STATUSES: readonly Schemas["RestoreJob"]["status"][] = ${JSON.stringify(RESTORE_FINAL)};`,
    "/** Statuses after which nothing more happens to a clip. */",
    `export const FINAL_CLIP_STATUSES: readonly Schemas["Clip"]["status"][] = ${JSON.stringify(CLIP_FINAL)};`,
    "/** A restore quality's API name. */",
    'export type RestoreQuality = Schemas["RestoreJob"]["quality"];',
    "/**",
    " * Each restore quality's display label, cheapest first (prices are the server's: getRestorePrices).",
    " * restoreQualityFromName reads either name as a person types it.",
    " */",
    `export const RESTORE_QUALITY_LABELS: Readonly<Record<RestoreQuality, string>> = ${JSON.stringify(QUALITY_LABELS)};`,
    "/** What a customer can say of a tape's levels (`fade` on a restore or a preview), the server's list. */",
    `export const FADE_HINTS: readonly Schemas["RestoreJob"]["fade"][] = ${JSON.stringify(FADE_HINTS)};`,
  );
  out.push(
    "",
    "/** Each operation's input (path, query and body fields by their REST names), answer and error codes. */",
    "export interface Operations {",
  );
  for (const { id, method, path: p, op, params } of ops) {
    const codes = errorCodes(op, allCodes);
    out.push(
      doc(`${op.summary ?? id} — \`${method} ${p}\``, "  ").trimEnd(),
      `  ${id}: {`,
      `    input: ${inputType(op, params)};`,
      `    output: ${outputType(op)};`,
      `    errors: ${codes.length ? codes.map((c) => JSON.stringify(c)).join(" | ") : "never"};`,
      "  };",
    );
  }
  out.push(
    "}",
    "",
    "/** An operation's id. */",
    "export type OperationId = keyof Operations;",
    "",
    "/** How each operation travels over HTTP. */",
    "export interface OperationRoute {",
    '  method: "GET" | "POST" | "PATCH";',
    "  /** The path template, e.g. `/cloud/jobs/{id}`. */",
    "  path: string;",
    "  /** Input fields that go in the path. */",
    "  pathParams: readonly string[];",
    "  /** Input fields that go in the query string. */",
    "  query: readonly string[];",
    "  /** Whether the other fields go as a JSON body. */",
    "  body: boolean;",
    "  /** Moves money (the contract's policies.spends): always sent with an Idempotency-Key. */",
    "  spends: boolean;",
    "  /** The operation takes an Idempotency-Key header. */",
    "  idempotencyKey: boolean;",
    '  /** Who may call: "none", "optional", "key", "wallet" or "admin". */',
    "  auth: string;",
    "}",
    "",
    "/** The route of every operation, by id. */",
    "export const OPERATIONS: { readonly [K in OperationId]: OperationRoute } = {",
  );
  for (const { id, method, path: p, op, params } of ops) {
    const facts = contracts.get(id) as ContractFacts;
    const route = {
      method,
      path: p,
      pathParams: params.filter((x) => x.in === "path").map((x) => x.name),
      query: params.filter((x) => x.in === "query").map((x) => x.name),
      body: Boolean(op.requestBody),
      spends: facts.spends,
      idempotencyKey: (op.parameters ?? []).some(
        (x: Param) => x.in === "header" && x.name.toLowerCase() === "idempotency-key",
      ),
      auth: facts.auth,
    };
    out.push(`  ${id}: ${JSON.stringify(route)},`);
  }
  out.push("};", "");
  return out.join("\n");
}

/** Formats with the repository's Biome settings, so the committed file passes `npm run check`. */
export async function formatSource(source: string): Promise<string> {
  const { spawnSync } = await import("node:child_process");
  const biome = path.join(root, "node_modules/.bin/biome");
  const r = spawnSync(biome, ["format", `--stdin-file-path=${GENERATED_PATH}`], {
    input: source,
    encoding: "utf8",
    cwd: root,
  });
  if (r.status !== 0) throw new Error(`biome format failed: ${r.stderr}`);
  return r.stdout;
}

/** The generated source as it should be now. */
export async function generate(): Promise<string> {
  const [docJson, contracts] = await Promise.all([buildOpenApiDocument(), loadContracts()]);
  return formatSource(renderGenerated(docJson, contracts));
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const source = await generate();
  if (process.argv.includes("--check")) {
    const current = readFileSync(GENERATED_PATH, "utf8");
    if (current !== source) {
      console.error(`${path.relative(root, GENERATED_PATH)} is stale: run npm run gen:client`);
      process.exit(1);
    }
    console.log("generated client is current");
  } else {
    writeFileSync(GENERATED_PATH, source);
    console.log(`wrote ${path.relative(root, GENERATED_PATH)}`);
    // The job kinds a caller follows and their wait helpers, from the server's registry.
    const { KINDS_PATH, renderKinds } = await import("./gen-client-kinds.js");
    writeFileSync(KINDS_PATH, await formatSource(renderKinds()));
    console.log(`wrote ${path.relative(root, KINDS_PATH)}`);
  }
}

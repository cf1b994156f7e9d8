/**
 * An operation's entry in the OpenAPI document, derived from its contract: operationId, the
 * path and query parameters and JSON body under their REST names, the success answers, and one
 * error response per status listing the codes the operation can answer there.
 */
import { zodToOpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "@hono/zod-openapi";
import type { AnyContract, Refer, RestBinding } from "../api/operation.js";
import { ErrorBody } from "../api/schemas.js";
import { ERROR_CODES, type ErrorCode } from "../domain/error-codes.js";
import type { KindSurface } from "../operations/kinds.js";
import { operationErrorExample } from "./error-examples.js";
import type { Router } from "./router.js";

/** Path parameter names of a template: `/cloud/jobs/{id}/start` → `["id"]`. */
export function pathParams(path: string): string[] {
  // cast: group 1 is not optional in the pattern: a match always has it
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/** The REST name of an input field. */
export const restName = (rest: RestBinding, field: string) => rest.names?.[field] ?? field;

/** Names an operation as a REST call, with the given ids filled into its path. */
export const restRefer: Refer = (to, args = {}) => {
  const list = Array.isArray(to) ? to : [to];
  // cast: find over a union of a contract and a list of them loses the element type
  const contract = list.find((c) => c.rest) as AnyContract | undefined;
  const rest = contract?.rest;
  if (!rest) throw new Error(`no REST binding among ${list.map((c) => c.id).join(", ")}`);
  let path = rest.path;
  for (const [field, value] of Object.entries(args)) {
    path = path.replace(`{${restName(rest, field)}}`, encodeURIComponent(value));
  }
  return `${rest.method.toUpperCase()} ${path}`;
};

/** How the input splits over REST: which fields are in the path, which in the query. */
export interface RestShape {
  path: string[];
  query: string[];
  body: string[];
}

export function restShape(contract: AnyContract, rest: RestBinding): RestShape {
  const fields = Object.keys(contract.input.shape);
  const inPath = new Set(pathParams(rest.path));
  const path = fields.filter((f) => inPath.has(restName(rest, f)));
  const others = fields.filter((f) => !path.includes(f));
  return rest.method === "get"
    ? { path, query: others, body: [] }
    : { path, query: [], body: others };
}

/** A z.object of `fields` under their REST names (for parameters in the document). */
function renamed(contract: AnyContract, rest: RestBinding, fields: string[]) {
  // cast: a contract's input is a z.object; its shape maps each field to its schema
  const shape = contract.input.shape as Record<string, z.ZodType>;
  return z.object(
    // cast: f is one of the input's own fields (listed from the contract's REST binding)
    Object.fromEntries(fields.map((f) => [restName(rest, f), shape[f] as z.ZodType])),
  );
}

/**
 * The JSON body's schema: the input itself when nothing is in the path (so a named schema stays
 * a component), else the input without the path fields, keeping its example.
 */
function bodySchema(contract: AnyContract, shape: RestShape): z.ZodType {
  if (shape.path.length === 0) return contract.input;
  const body = contract.input.omit(Object.fromEntries(shape.path.map((f) => [f, true])));
  const example = zodToOpenAPIRegistry.get(contract.input)?.example;
  if (!example || typeof example !== "object") return body;
  const kept = Object.fromEntries(
    Object.entries(example).filter(([field]) => !shape.path.includes(field)),
  );
  return body.openapi({ example: kept });
}

/** Every code a REST call of this contract can answer, the implied ones included. */
export function errorCodesOf(contract: AnyContract, shape: RestShape): ErrorCode[] {
  const codes = new Set<ErrorCode>(contract.errors);
  if (shape.query.length + shape.body.length > 0) codes.add("invalid_field");
  const writes = contract.rest && contract.rest.method !== "get";
  if (writes) {
    codes.add("invalid_request");
    codes.add("too_large");
  }
  if (shape.path.length > 0) codes.add("not_found");
  if (contract.auth === "admin") codes.add("unauthorized");
  if (contract.auth === "key" || contract.auth === "wallet" || contract.auth === "optional") {
    // http/middleware/auth.ts: a key in the URL, an unknown key, a revoked agent key.
    codes.add("key_in_url");
    codes.add("unauthorized");
    codes.add("key_revoked");
  }
  if (contract.auth === "wallet") codes.add("wallet_key_required");
  // Only an authenticated caller's Idempotency-Key is kept (operations/run.ts).
  if (writes && contract.auth !== "none") {
    codes.add("idempotency_key_reused");
    codes.add("idempotency_in_flight");
  }
  if (contract.policies?.rate || contract.auth !== "none") codes.add("rate_limited");
  return [...codes];
}

/** x402's 402: the terms in the PAYMENT-REQUIRED header, and in the body as payment_required. */
const X402_REQUIRED = {
  headers: {
    "PAYMENT-REQUIRED": {
      description: "The x402 v2 payment terms (base64 JSON of PaymentRequired).",
      schema: { type: "string" },
    },
  },
  content: {
    "application/json": {
      schema: ErrorBody.extend({
        payment_required: z.record(z.string(), z.unknown()).optional(),
      }),
    },
  },
};

/** The example body of each code on this operation (./error-examples.ts), keyed by code. */
function errorExamples(
  contract: AnyContract,
  rest: RestBinding,
  shape: RestShape,
  codes: readonly ErrorCode[],
  kinds: readonly KindSurface[],
) {
  const fields = [...shape.query, ...shape.body];
  return Object.fromEntries(
    codes.map((code) => {
      const example = operationErrorExample(contract, rest, code, fields, restRefer, kinds);
      const { detail, extra } = example;
      const value = { detail, code, ...extra, request_id: "req_5pX0c1Hq3GvJ2Yb8Lw9RzA" };
      return [code, { summary: ERROR_CODES[code].meaning, value }];
    }),
  );
}

/** One response per status, listing its codes, with each code's example on this operation. */
function errorResponses(
  contract: AnyContract,
  rest: RestBinding,
  shape: RestShape,
  kinds: readonly KindSurface[],
) {
  const x402 = contract.policies?.payment === "x402";
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(contract, shape)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, object> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const json = x402 && status === 402 ? X402_REQUIRED.content["application/json"] : undefined;
    out[String(status)] = {
      description: list.map((c) => `\`${c}\`: ${ERROR_CODES[c].meaning}`).join(" "),
      ...(x402 && status === 402 ? { headers: X402_REQUIRED.headers } : {}),
      content: {
        "application/json": {
          schema: json?.schema ?? ErrorBody,
          examples: errorExamples(contract, rest, shape, list, kinds),
        },
      },
    };
  }
  return out;
}

function securityOf(contract: AnyContract) {
  switch (contract.auth) {
    case "none":
      return undefined;
    case "optional":
      return [{}, { bearer: [] }];
    case "admin":
      return [{ admin: [] }];
    default:
      return [{ bearer: [] }];
  }
}

/**
 * Registers the contract's REST operation in the app's OpenAPI registry; `kinds` (the job
 * kinds served) word the examples of a job id not found.
 */
export function documentOperation(
  app: Router,
  contract: AnyContract,
  rest: RestBinding,
  kinds: readonly KindSurface[] = [],
) {
  const shape = restShape(contract, rest);
  const request: Record<string, unknown> = {};
  if (shape.path.length > 0) request.params = renamed(contract, rest, shape.path);
  if (shape.query.length > 0) request.query = renamed(contract, rest, shape.query);
  if (shape.body.length > 0) {
    const body = bodySchema(contract, shape);
    // cast: a contract's input is a z.object; its shape maps each field to its schema
    const fields = contract.input.shape as Record<string, z.ZodType>;
    const required = shape.body.some((f) => !fields[f]?.isOptional());
    request.body = { required, content: { "application/json": { schema: body } } };
  }
  if (contract.policies?.payment === "x402") {
    request.headers = z.object({
      "payment-signature": z.string().max(16_384).optional().openapi({
        description: "Base64 JSON x402 v2 payment payload (the signed EIP-3009 transfer).",
      }),
    });
  }
  const headers = Object.fromEntries(
    Object.entries(rest.headers ?? {}).map(([name, description]) => [
      name,
      { description, schema: { type: "string" } },
    ]),
  );
  // cast: zod-openapi's RouteConfig wants literal types the contract's binding has as strings
  app.openAPIRegistry.registerPath({
    method: rest.method,
    path: rest.path,
    operationId: contract.id,
    tags: [...rest.tags],
    summary: rest.summary,
    description: rest.description,
    ...(securityOf(contract) ? { security: securityOf(contract) } : {}),
    ...(contract.auth === "wallet" ? { "x-wallet-key-only": true } : {}),
    request,
    responses: {
      200: {
        description: rest.answer ?? "OK.",
        ...(rest.headers ? { headers } : {}),
        content: { "application/json": { schema: contract.output } },
      },
      ...(rest.accepted
        ? {
            202: {
              description: rest.accepted.description,
              content: { "application/json": { schema: rest.accepted.schema } },
            },
          }
        : {}),
      ...errorResponses(contract, rest, shape, kinds),
    },
  } as Parameters<Router["openAPIRegistry"]["registerPath"]>[0]);
}

/**
 * The OpenAPI 3.1.0 document, finished in one place with what holds for whole classes of
 * operations rather than for one route: every keyed operation can answer 400, 401 and 402
 * (SPEC: "Every keyed endpoint can answer 400, 401 and 402"), every POST body is size-limited
 * (413), and every POST a caller makes takes an Idempotency-Key header (409 when a keyed
 * caller reuses one).
 */
import type { Router } from "./router.js";

const ERROR_REF = { $ref: "#/components/schemas/Error" };
/**
 * What the interface promises every keyed endpoint may answer. An operation documents its own
 * 400 and 401 (with examples); a 402 is added here only to those that charge nothing, and says
 * so, so the reference neither hides the interface's rule nor suggests a charge.
 */
const KEYED_ERRORS: Record<string, string> = {
  "400": "Bad input; `detail` says what to fix.",
  "401": "Missing, unknown or revoked key.",
  "402":
    "Listed on every keyed endpoint by the interface: `needs_topup` or `over_limit` when a call costs more than the balance or the key's limit allows. This operation charges nothing, so it does not answer 402.",
};

/** Every POST body is size-limited (JSON_BODY_MAX_BYTES: operations, /mcp, the worker API). */
const TOO_LARGE = {
  description: "`too_large`: the body is larger than the limit.",
  content: { "application/json": { schema: ERROR_REF } },
};
/** A keyed call's Idempotency-Key reused with another request, or while the first runs. */
const KEY_REUSED = {
  description:
    "`idempotency_key_reused`: this Idempotency-Key was used with a different request. `idempotency_in_flight`: a request with this key is still in progress.",
  content: { "application/json": { schema: ERROR_REF } },
};

const IDEMPOTENCY_HEADER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "1–255 printable ASCII characters. With a key: the same key and request within 24 hours replays the first response (header `Idempotent-Replayed: true`); another request with the same key is a 409. Replays go only to the same credential; requests that are not authenticated are never stored or replayed, whatever `Authorization` says.",
  schema: { type: "string", minLength: 1, maxLength: 255, example: "create-job-7f3a" },
};

/** Paths whose POSTs are machine-to-machine, not caller requests that could be retried. */
const NOT_IDEMPOTENT = [/^\/webhooks\//, /^\/worker\//, /^\/hooks\//, /^\/mcp$/];

type Operation = {
  security?: Record<string, unknown>[];
  responses?: Record<string, unknown>;
  parameters?: { name: string; in: string }[];
};

function finishDocument<T extends object>(doc: T): T {
  // cast: the generated OpenAPI document, which has paths of operations
  const paths = (doc as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, value] of Object.entries(item)) {
      // cast: each method of a path item in the generated document is an operation
      const op = value as Operation;
      if (op.security?.some((s) => "bearer" in s)) {
        op.responses ??= {};
        for (const [status, description] of Object.entries(KEYED_ERRORS)) {
          op.responses[status] ??= {
            description,
            content: { "application/json": { schema: ERROR_REF } },
          };
        }
      }
      if (method === "post" || method === "patch") {
        op.responses ??= {};
        op.responses["413"] ??= TOO_LARGE;
      }
      if (
        (method === "post" || method === "patch") &&
        !NOT_IDEMPOTENT.some((re) => re.test(path))
      ) {
        op.parameters ??= [];
        if (!op.parameters.some((p) => p.in === "header" && p.name === "Idempotency-Key")) {
          op.parameters.push(IDEMPOTENCY_HEADER);
        }
        // Only an authenticated caller's key is kept (operations/run.ts), so only keyed calls 409.
        if (op.security?.some((s) => "bearer" in s || "admin" in s)) {
          op.responses ??= {};
          op.responses["409"] ??= KEY_REUSED;
        }
      }
    }
  }
  return doc;
}

/** Serves the OpenAPI document at /openapi.json, built once. */
export function registerOpenApiDocument(
  app: Router,
  config: Parameters<Router["getOpenAPI31Document"]>[0],
) {
  app.get("/openapi.json", (c) => c.json(finishDocument(app.getOpenAPI31Document(config))));
}

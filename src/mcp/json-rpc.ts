/**
 * JSON-RPC error answers kinora writes itself, before a message reaches the SDK (unreadable
 * JSON, a wrong content type, a batch on a revision without batches, malformed params), in the SDK's own shape
 * so a client sees one format whichever layer refused.
 */

import {
  CallToolRequestParamsSchema,
  InitializeRequestParamsSchema,
} from "@modelcontextprotocol/core";

/** `{"jsonrpc":"2.0","error":{code,message},"id":…}` with the HTTP status. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id }, { status });
}

/** Methods whose params, when malformed, are the caller's mistake the SDK would call internal. */
const CHECKED_PARAMS = {
  initialize: InitializeRequestParamsSchema,
  "tools/call": CallToolRequestParamsSchema,
} as const;

/**
 * A request to `initialize` or `tools/call` whose params the protocol's own schema refuses:
 * answered -32602 (Invalid params) naming what is wrong, where the SDK would answer -32603.
 * Undefined for anything else (batches and other methods go to the SDK as they are).
 */
export function invalidParams(body: unknown): Response | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  // cast: checked to be a plain object just above; its fields are unknown until checked
  const { method, params, id } = body as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== "initialize" && method !== "tools/call") return;
  if (typeof id !== "string" && typeof id !== "number") return;
  const parsed = CHECKED_PARAMS[method].safeParse(params);
  if (parsed.success) return;
  const problems = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${["params", ...i.path].join(".")}: ${i.message}`);
  return jsonRpcError(200, -32602, `Invalid params for ${method}: ${problems.join("; ")}`, id);
}

/**
 * The 2026-07-28 standard request headers, checked on the requests kinora answers itself
 * (tasks, ./task-requests.ts) exactly as the SDK checks the ones it answers: `MCP-Protocol-Version`
 * and `Mcp-Method` present, and `Mcp-Name` mirroring the body's `params.name` (tools/call) or
 * `params.taskId` (tasks/*) — so a proxy that routes by header can never be sent one task while
 * the body names another. A mismatch is the SDK's answer: HTTP 400, JSON-RPC error -32020.
 */
import { jsonRpcError } from "./json-rpc.js";

/** The JSON-RPC code the SDK answers disagreeing headers with (its HEADER_MISMATCH_ERROR_CODE). */
export const HEADER_MISMATCH = -32020;

/** Which body field `Mcp-Name` mirrors, per method (SEP-2243 and SEP-2663's HTTP binding). */
const NAME_SOURCE: Record<string, string> = {
  "tools/call": "name",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value as sent: plain, or `=?base64?…?=` for values a header cannot carry; undefined when that is malformed. */
function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  return BASE64.test(b64) ? Buffer.from(b64, "base64").toString("utf8") : undefined;
}

/** Why the headers disagree with the body of this request; undefined when they agree. */
export function headerMismatch(
  headers: Headers,
  method: string,
  params: Record<string, unknown>,
): string | undefined {
  if (headers.get("mcp-protocol-version") === null) {
    return "the required MCP-Protocol-Version header is absent";
  }
  const methodHeader = headers.get("mcp-method")?.trim();
  if (methodHeader === undefined)
    return `the body names method ${method} but the required Mcp-Method header is absent`;
  if (methodHeader !== method) {
    return `the body names method ${method} but the Mcp-Method header names "${methodHeader}"`;
  }
  const field = NAME_SOURCE[method];
  const bodyValue = field ? params[field] : undefined;
  if (!field || typeof bodyValue !== "string") return undefined;
  const raw = headers.get("mcp-name")?.trim();
  if (raw === undefined) {
    return `the body carries params.${field}="${bodyValue}" but the required Mcp-Name header is absent`;
  }
  const named = decodeHeaderValue(raw);
  if (named === undefined) return "the Mcp-Name header carries an invalid Base64 sentinel value";
  if (named !== bodyValue) {
    return `the body carries params.${field}="${bodyValue}" but the Mcp-Name header names "${named}"`;
  }
  return undefined;
}

/** The SDK's answer to disagreeing headers. */
export function headerMismatchResponse(why: string, id: string | number): Response {
  return jsonRpcError(
    400,
    HEADER_MISMATCH,
    `Bad Request: the request headers and body disagree: ${why}`,
    id,
  );
}

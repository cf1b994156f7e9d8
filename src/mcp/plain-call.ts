/**
 * The shape both the era memo (./era.ts) and the fast path (./fast-path.ts) look for: a plain
 * `tools/call` — `jsonrpc`, a string or safe-integer id, `method`, and `params` holding only a
 * tool name, object arguments and an object `_meta`. One reading of it, so the memo's promise
 * ("this shape classifies alike") and the fast path's ("this shape is answered here") are
 * about the same requests.
 */
import { isRecord, type JsonRecord } from "../domain/records.js";

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAMS_KEYS = new Set(["name", "arguments", "_meta"]);

/** A plain `tools/call`'s parts. */
export interface PlainCall {
  id: string | number;
  name: string;
  args: JsonRecord | undefined;
  meta: JsonRecord | undefined;
}

function onlyKeys(obj: JsonRecord, allowed: ReadonlySet<string>): boolean {
  for (const key in obj) if (!allowed.has(key)) return false;
  return true;
}

/** The body's parts when it is a plain `tools/call`, else undefined. */
export function plainToolCall(body: unknown): PlainCall | undefined {
  if (!isRecord(body) || body.jsonrpc !== "2.0" || body.method !== "tools/call") return;
  const { id, params } = body;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return;
  if (!onlyKeys(body, MESSAGE_KEYS) || !isRecord(params) || !onlyKeys(params, PARAMS_KEYS)) return;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== "string") return;
  if (args !== undefined && !isRecord(args)) return;
  if (meta !== undefined && !isRecord(meta)) return;
  return { id, name, args, meta };
}

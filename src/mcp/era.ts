/**
 * Which protocol era a parsed POST speaks, decided by the SDK's own classifier
 * (`classifyInboundRequest`, the rule `isLegacyRequest` applies) — and, for the hot shape, read
 * from a small memo instead of running the classifier's schema checks again on every call.
 *
 * The memo is sound because of what it covers: a plain `tools/call` (the fast path's shape:
 * `jsonrpc`, an id, `method`, `params` with `name`, object `arguments` and `_meta` only) whose
 * `_meta` holds nothing but the protocol's envelope keys. For that shape the classifier's
 * answer depends on the MCP-Protocol-Version and Mcp-Method headers and on the envelope alone —
 * never on the tool, its arguments or the id — so one classification of the same headers and
 * envelope on a stand-in body is the classification of every such call. A client sends the
 * same envelope on every call: the classifier runs once per client kind, not once per call
 * (measured: ≈ 10 µs a call on a quiet machine, several times that on a busy one).
 */
import {
  classifyInboundRequest,
  type InboundClassificationOutcome,
} from "@modelcontextprotocol/server";
import { isRecord, type JsonRecord } from "../domain/records.js";
import { plainToolCall } from "./plain-call.js";

const ENVELOPE_PREFIX = "io.modelcontextprotocol/";
/** The envelope keys a memo key may write by hand (envelopeKey), and the values it may. */
const HAND_KEYED = new Set([
  `${ENVELOPE_PREFIX}protocolVersion`,
  `${ENVELOPE_PREFIX}clientCapabilities`,
]);
const PLAIN_VALUE = /^[\w.-]{1,64}$/;
/** Distinct header-and-envelope combinations kept; past it the memo starts again. */
const MEMO_MAX = 512;

type JsonObject = JsonRecord;

/** The headers the classifier reads (and the fast path checks against the body). */
export interface EraHeaders {
  version: string | undefined;
  method: string | undefined;
  name: string | undefined;
}

/** MCP-Protocol-Version, Mcp-Method and Mcp-Name, read once per request. */
export function eraHeaders(req: Request): EraHeaders {
  return {
    version: req.headers.get("mcp-protocol-version") ?? undefined,
    method: req.headers.get("mcp-method") ?? undefined,
    name: req.headers.get("mcp-name") ?? undefined,
  };
}

function sdkClassify(h: EraHeaders, body: unknown): InboundClassificationOutcome {
  return classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: h.version,
    mcpMethodHeader: h.method,
    mcpNameHeader: h.name,
    body,
  });
}

/** The `_meta` of a plain tools/call holding envelope keys only (undefined: none); false otherwise. */
function plainCallMeta(body: unknown): JsonObject | undefined | false {
  const plain = plainToolCall(body);
  if (!plain) return false;
  const { meta } = plain;
  if (meta === undefined) return undefined;
  for (const key in meta) if (!key.startsWith(ENVELOPE_PREFIX)) return false;
  return meta;
}

/**
 * The envelope as a memo key: JSON.stringify's (the key only has to tell two envelopes apart),
 * except for the usual envelope — the known keys, a version-like string or empty client
 * capabilities each — written by hand, where JSON.stringify costs more than the rest of the
 * lookup. Unambiguous: the hand form holds only known names and `[\w.-]` values, so no `=` or
 * line break of a value can forge another envelope's key, and it never starts with `{`.
 */
function envelopeKey(meta: JsonObject): string {
  let key = "";
  for (const name in meta) {
    const value = meta[name];
    if (!HAND_KEYED.has(name)) return JSON.stringify(meta);
    if (typeof value === "string" && PLAIN_VALUE.test(value)) key += `${name}=${value}\n`;
    else if (isRecord(value) && isEmpty(value)) key += `${name}={}\n`;
    else return JSON.stringify(meta);
  }
  return key;
}

function isEmpty(obj: JsonObject): boolean {
  for (const _ in obj) return false;
  return true;
}

/** Classifies requests as the SDK does, remembering the answer for the hot shape. */
export function eraClassifier(): (h: EraHeaders, body: unknown) => InboundClassificationOutcome {
  const memo = new Map<string, InboundClassificationOutcome>();
  return (h, body) => {
    const meta = plainCallMeta(body);
    if (meta === false) return sdkClassify(h, body);
    const key = `${h.version}\n${h.method}\n${meta === undefined ? "" : envelopeKey(meta)}`;
    let known = memo.get(key);
    if (!known) {
      const params = meta === undefined ? { name: "_" } : { name: "_", _meta: meta };
      known = sdkClassify(h, { jsonrpc: "2.0", id: 0, method: "tools/call", params });
      if (memo.size >= MEMO_MAX) memo.clear();
      memo.set(key, known);
    }
    // A modern route carries the message it classified: this request's, not the stand-in.
    // Built by hand, not spread: this runs on every hot call.
    return known.kind === "modern" && known.messageKind === "request"
      ? {
          kind: "modern",
          messageKind: "request",
          // cast: the same body was classified as a modern request (memoised by its shape above)
          message: body as typeof known.message,
          classification: known.classification,
        }
      : known;
  };
}

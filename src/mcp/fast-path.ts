/**
 * The hot path: a `tools/call` of a known tool, answered in one JSON body — what nearly every
 * assistant sends, in either protocol era — served without building an SDK server and
 * transport for it (their request copies, abort signals and wire-schema parses cost more than
 * the call itself). It runs the same tool call (./call.ts: arguments read as every operation's
 * input, the shared operation runner, refusals as error results) and writes the bytes the SDK
 * would write. Whatever it cannot be sure the SDK would take exactly as sent — batches,
 * progress tokens, task or multi-round fields, a spending call that may ask the owner, unknown
 * tools, odd ids, versions or headers —
 * is left to the SDK, which answers it in full. The 2026-07-28 envelope is checked by the
 * SDK's own classifier before this path is considered (./handler.ts).
 * test/mcp/fast-path.test.ts holds the two answers to each other byte for byte.
 */
import {
  type CallToolResult,
  type InboundModernRoute,
  isInputRequiredResult,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import type { Operation } from "../api/operation.js";
import type { JsonRecord } from "../domain/records.js";
import { callTool } from "./call.js";
import type { McpCall, McpContext, McpEra } from "./context.js";
import type { EraHeaders } from "./era.js";
import { plainToolCall } from "./plain-call.js";
import { SERVER_INFO } from "./server.js";

const MODERN_REVISION = "2026-07-28";
const ENVELOPE = "io.modelcontextprotocol/";
const PROTOCOL_VERSION_KEY = `${ENVELOPE}protocolVersion`;
const CLIENT_CAPABILITIES_KEY = `${ENVELOPE}clientCapabilities`;
/** The envelope keys a modern hot call may carry (others, e.g. a log level, go to the SDK). */
const MODERN_ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_KEY,
  CLIENT_CAPABILITIES_KEY,
  `${ENVELOPE}clientInfo`,
]);
const NO_ENVELOPE = new Set<string>();

/** A call the fast path answers. */
export interface HotCall {
  era: McpEra;
  id: string | number;
  op: Operation;
  args: Record<string, unknown> | undefined;
  call: McpCall;
}

/** A JSON answer as text: no Response to build and read back (the route writes it as is). */
export interface JsonAnswer {
  status: 200;
  json: string;
}

type JsonObject = JsonRecord;

/** The message, tool and arguments of a plain `tools/call` of a known tool, or undefined. */
function plainCall(body: unknown, byName: ReadonlyMap<string, Operation>) {
  const plain = plainToolCall(body);
  const op = plain && byName.get(plain.name);
  return op ? { ...plain, op } : undefined;
}

/**
 * `_meta` split into the client's declared capabilities (the one envelope key the call reads)
 * and the keys outside the protocol's envelope (what the SDK hands a handler), when it holds
 * nothing the fast path leaves to the SDK: a progress token, other protocol keys.
 */
function splitMeta(meta: JsonObject | undefined, envelopeKeys: ReadonlySet<string>) {
  let rest: JsonObject | undefined;
  for (const key in meta) {
    if (key === "progressToken") return;
    if (key.startsWith(ENVELOPE)) {
      if (!envelopeKeys.has(key)) return;
    } else {
      rest ??= {};
      rest[key] = meta[key];
    }
  }
  // cast: the client's declared capabilities, read leniently by each user
  const capabilities = meta?.[CLIENT_CAPABILITIES_KEY] as McpCall["clientCapabilities"];
  return { capabilities, rest };
}

function callOf(
  era: McpEra,
  version: string | undefined,
  meta: JsonObject | undefined,
  clientCapabilities?: McpCall["clientCapabilities"],
): McpCall {
  return {
    era,
    protocolVersion: version,
    clientCapabilities,
    progressToken: undefined,
    notify: undefined,
    inputResponses: undefined,
    requestState: undefined,
    meta,
  };
}

/** A 2025-era body the fast path may answer (the request is known to be 2025-era). */
export function hotLegacyCall(
  body: unknown,
  versionHeader: string | undefined,
  byName: ReadonlyMap<string, Operation>,
): HotCall | undefined {
  const plain = plainCall(body, byName);
  if (!plain || !splitMeta(plain.meta, NO_ENVELOPE)) return;
  if (versionHeader !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(versionHeader)) return;
  const { id, op, args, meta } = plain;
  return { era: "legacy", id, op, args, call: callOf("legacy", versionHeader, meta) };
}

/**
 * A 2026-07-28 request (as the SDK's classifier routed it) the fast path may answer: the
 * routing headers present and naming exactly what the body does.
 */
export function hotModernCall(
  route: InboundModernRoute,
  headers: EraHeaders,
  byName: ReadonlyMap<string, Operation>,
): HotCall | undefined {
  if (route.messageKind !== "request" || route.classification.revision !== MODERN_REVISION) return;
  const plain = plainCall(route.message, byName);
  const split = plain && splitMeta(plain.meta, MODERN_ENVELOPE_KEYS);
  if (!plain || !split) return;
  if (
    headers.version !== MODERN_REVISION ||
    headers.method !== "tools/call" ||
    headers.name !== plain.name
  ) {
    return;
  }
  const { capabilities } = split;
  // A spending call may be answered inputRequired (./agreement.ts): the SDK writes that.
  if (plain.op.contract.price && capabilities?.elicitation) return;
  const call = callOf("modern", MODERN_REVISION, split.rest, capabilities);
  return { era: "modern", id: plain.id, op: plain.op, args: plain.args, call };
}

/** The 2026-07-28 codec's stamps on a tool result: `resultType`, and who answered in `_meta`. */
function stampedModern(result: CallToolResult): CallToolResult {
  const stamped = { ...result, resultType: "complete" };
  return { ...stamped, _meta: { ...result._meta, [SERVER_INFO_META_KEY]: SERVER_INFO } };
}

/** What follows `structuredContent` in a plain success result, per era (see spliced below). */
const PLAIN_TAIL = {
  legacy: "}",
  modern: `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO })}}`,
};

/**
 * The JSON-RPC answer of a plain success — `{content: [one text], structuredContent}`, nothing
 * else — written without serialising the answer twice: ./call.ts makes such a result only as
 * the text of `structuredContent`'s JSON (toolResult), so that text *is* its serialisation.
 * The bytes are JSON.stringify's of the stamped object, key for key (fast-path.test.ts).
 */
function spliced(result: CallToolResult, era: McpEra, id: string | number): string | undefined {
  const { content, structuredContent } = result;
  if (structuredContent === undefined || content.length !== 1) return;
  let keys = 0;
  for (const _ in result) keys++;
  const first = content[0];
  if (keys !== 2 || first?.type !== "text" || Object.keys(first).length !== 2) return;
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(first.text)}}],"structuredContent":${first.text}${PLAIN_TAIL[era]},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** Answers a hot call with the body the SDK's stateless JSON transport would write. */
export async function answerHotCall(hot: HotCall, ctx: McpContext): Promise<JsonAnswer> {
  const result = await callTool(hot.op, ctx, hot.args, hot.call);
  if (isInputRequiredResult(result)) throw new Error("a hot call was answered inputRequired");
  const plain = spliced(result, hot.era, hot.id);
  if (plain !== undefined) return { status: 200, json: plain };
  const wire = hot.era === "modern" ? stampedModern(result) : result;
  // The SDK's transports serialise the same object with Response.json (JSON.stringify).
  return { status: 200, json: JSON.stringify({ result: wire, jsonrpc: "2.0", id: hot.id }) };
}

/**
 * The MCP server of one request, for either protocol era: the SDK's low-level Server (its
 * instances cannot be shared between requests in flight), with the two handlers kinora needs.
 * Everything costly — the tool listing and its JSON Schemas — comes from the per-process
 * catalogue, so building one costs tens of microseconds; argument reading, error results and
 * `_meta` are ours (./call.ts). Progress, tasks and elicitation (the next steps) read what a
 * request carries from the McpCall built here (./context.ts).
 */
import {
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { callTool } from "./call.js";
import { catalogue } from "./catalogue.js";
import type { McpCall, McpContext, McpEra } from "./context.js";
import { instructionsFor } from "./instructions.js";
import { verifyRequestState } from "./request-state.js";
import { LEGACY_TASKS_CAPABILITY, TASKS_EXTENSION } from "./task-tools.js";

/** The name and version every era's handshake (`initialize`, `server/discover`) reports. */
export const SERVER_INFO = { name: "kinora", title: "kinora", version: "1.0.0" } as const;

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/** How one request is served: its era, and whether its answer may become an SSE stream. */
export interface Serving {
  era: McpEra;
  /** The client lists `text/event-stream` in Accept. */
  acceptsSse: boolean;
  /** The HTTP request's MCP-Protocol-Version header (the legacy era's revision). */
  versionHeader: string | undefined;
}

/** What a tools/call carries besides its arguments, as the SDK hands it to the handler. */
export function callOf(sdk: ServerContext, serving: Serving): McpCall {
  // cast: the SDK's envelope is a JSON object; its keys are read one by one
  const envelope = (sdk.mcpReq.envelope ?? {}) as Record<string, unknown>;
  // cast: the SDK's _meta is a JSON object; the progress token is checked with typeof
  const meta = sdk.mcpReq._meta as Record<string, unknown> | undefined;
  const token = meta?.progressToken;
  const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
  const state = sdk.mcpReq.requestState<Record<string, unknown>>();
  return {
    era: serving.era,
    protocolVersion:
      serving.era === "modern"
        ? // cast: the SDK validated the modern envelope, whose protocol version is a string
          (envelope[PROTOCOL_VERSION_KEY] as string | undefined)
        : serving.versionHeader,
    // cast: the SDK validated the envelope's capabilities against its schema
    clientCapabilities: envelope[CLIENT_CAPABILITIES_KEY] as ClientCapabilities | undefined,
    progressToken,
    // Streamed only to a client that reads SSE and asked for progress; anything else stays one
    // JSON body (the modern leg would turn into SSE at the first notification).
    notify: serving.acceptsSse && progressToken !== undefined ? sdk.mcpReq.notify : undefined,
    inputResponses: sdk.mcpReq.inputResponses,
    // With our verify hook configured the accessor yields its claims, never the raw string.
    requestState: state && typeof state === "object" ? state : undefined,
    meta,
  };
}

/** A fresh server for one request of `ctx`'s caller, served as `serving` says. */
export function createMcpServer(ctx: McpContext, serving: Serving): Server {
  const { tools, byName } = catalogue(ctx.operations);
  const { signer } = ctx.deps;
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: false },
      // Tasks are answered by ./tasks.ts (both eras' declarations; each client reads its own).
      tasks: LEGACY_TASKS_CAPABILITY,
      extensions: { [TASKS_EXTENSION]: {} },
    },
    instructions: instructionsFor(ctx.principal, ctx),
    requestState: {
      verify: (state) => verifyRequestState(signer, ctx.principal.keyId, state, Date.now()),
    },
  });
  server.setRequestHandler("tools/list", () => ({ tools }));
  server.setRequestHandler("tools/call", (req, sdk) => {
    const op = byName.get(req.params.name);
    if (!op) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `No tool named ${req.params.name}; tools/list shows the ${tools.length} tools.`,
      );
    }
    return callTool(op, ctx, req.params.arguments, callOf(sdk, serving));
  });
  return server;
}

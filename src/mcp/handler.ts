/**
 * POST /mcp for both protocol eras, stateless, framework-free (a web-standard Request in, a
 * Response out). In order: the caller's key or token (a 401 with the challenge before any
 * JSON-RPC), the body read and parsed once, then the era: a body carrying the 2026-07-28
 * per-request envelope goes to the SDK's modern handler, everything else (`initialize`,
 * 2025-era calls, batches) to the hand-wired legacy leg (./legacy.ts). Both build their
 * per-request server from one definition (./server.ts); the hot `tools/call` that answers in
 * JSON skips the SDK's machinery but not its wire format, in either era (./fast-path.ts).
 */
import {
  type AuthInfo,
  createMcpHandler,
  isJsonContentType,
  type McpServerFactory,
} from "@modelcontextprotocol/server";
import { type McpCaller, mcpCaller } from "./auth.js";
import { catalogue } from "./catalogue.js";
import type { McpContext, McpServices } from "./context.js";
import { eraClassifier, eraHeaders } from "./era.js";
import { answerHotCall, hotLegacyCall, hotModernCall, type JsonAnswer } from "./fast-path.js";
import { jsonRpcError } from "./json-rpc.js";
import { acceptsSse, serveLegacy } from "./legacy.js";
import { createMcpServer } from "./server.js";
import { headerMismatch, headerMismatchResponse } from "./standard-headers.js";
import { answerTaskRequest, taskRequest } from "./task-requests.js";

/** The MCP endpoint of one set of services (made once per process). */
export interface McpEndpoint {
  /**
   * The answer: a Response, or (the fast path's) JSON text to send with its status. `bodyText`:
   * the body when the route already has it (read from Node's stream); otherwise read from `req`.
   */
  handle(req: Request, requestId: string, bodyText?: string): Promise<Response | JsonAnswer>;
}

/** The per-request context rides to the modern leg's factory in the SDK's pass-through AuthInfo. */
function authInfoOf(ctx: McpContext): AuthInfo {
  return { token: "", clientId: ctx.principal.keyId, scopes: [], extra: { kinora: ctx } };
}

const modernFactory: McpServerFactory = ({ authInfo, requestInfo }) => {
  // cast: authInfoOf put it there for this request (the SDK passes AuthInfo through)
  const ctx = authInfo?.extra?.kinora as McpContext;
  return createMcpServer(ctx, {
    era: "modern",
    acceptsSse: requestInfo ? acceptsSse(requestInfo) : false,
    versionHeader: requestInfo?.headers.get("mcp-protocol-version") ?? undefined,
  });
};

/**
 * One request's MCP context. A class, not an object literal: `signal` must be a getter (the
 * request's AbortSignal is made only when something listens, and most calls end before any
 * would), and V8 builds a literal with a getter on a slow path, ~0.5 µs on every call.
 */
class RequestContext implements McpContext {
  readonly deps: McpContext["deps"];
  readonly operations: McpContext["operations"];
  readonly kinds: McpContext["kinds"];
  readonly principal: McpContext["principal"];
  readonly credential: string;
  constructor(
    services: McpServices,
    caller: McpCaller,
    readonly requestId: string,
    private readonly req: Request,
  ) {
    this.deps = services.deps;
    this.operations = services.operations;
    this.kinds = services.kinds;
    this.principal = caller.principal;
    this.credential = caller.credential;
  }
  get signal(): AbortSignal {
    return this.req.signal;
  }
}

/** Reads the JSON body once; undefined with the answer when it is not JSON. */
async function parsedBody(
  req: Request,
  bodyText: string | undefined,
): Promise<{ body: unknown } | { refused: Response }> {
  if (!isJsonContentType(req.headers.get("content-type"))) {
    return {
      refused: jsonRpcError(
        415,
        -32000,
        "Unsupported Media Type: Content-Type must be application/json",
      ),
    };
  }
  const text = bodyText ?? (await req.text());
  try {
    return { body: JSON.parse(text) };
  } catch {
    return {
      refused: jsonRpcError(400, -32700, "Parse error: the request body is not valid JSON"),
    };
  }
}

export interface McpEndpointOptions {
  /** Answer the hot tools/call of either era without the SDK (./fast-path.ts); default on. */
  fastPath?: boolean;
}

export function createMcpEndpoint(
  services: McpServices,
  opts: McpEndpointOptions = {},
): McpEndpoint {
  const { deps } = services;
  const { byName } = catalogue(services.operations);
  const fastPath = opts.fastPath ?? true;
  // The era as the SDK's classifier decides it (legacy: the 2025 leg; modern and its
  // rejections: the modern handler, which answers them), remembered for the hot shape.
  const classify = eraClassifier();
  const modern = createMcpHandler(modernFactory, {
    legacy: "reject",
    // Rejections of malformed requests land here too: they are the client's, answered in band.
    onerror: (err) => deps.log.debug("mcp protocol", { err: err.message }),
  });
  return {
    async handle(req, requestId, bodyText) {
      const caller = await mcpCaller(deps, req, deps.publicUrl);
      const parsed = await parsedBody(req, bodyText);
      if ("refused" in parsed) return parsed.refused;
      const { body } = parsed;
      const ctx: McpContext = new RequestContext(services, caller, requestId, req);
      const headers = eraHeaders(req);
      const route = classify(headers, body);
      const version = headers.version;
      // Task requests (tasks/*, a job-starting call of a client that takes tasks): ./tasks.ts.
      if (route.kind !== "reject") {
        const era = route.kind;
        const task = taskRequest(era, era === "modern" ? route.message : body, byName);
        // Answered here, not by the SDK: so the SDK's header rule is applied here too.
        const mismatch =
          task && era === "modern"
            ? headerMismatch(req.headers, task.method, task.params)
            : undefined;
        if (task && mismatch) return headerMismatchResponse(mismatch, task.id);
        if (task) return answerTaskRequest(era, task, ctx, version);
      }
      if (route.kind === "legacy") {
        const hot = fastPath ? hotLegacyCall(body, version, byName) : undefined;
        return hot ? answerHotCall(hot, ctx) : serveLegacy(req, body, ctx);
      }
      const hot =
        fastPath && route.kind === "modern" ? hotModernCall(route, headers, byName) : undefined;
      if (hot) return answerHotCall(hot, ctx);
      return modern.fetch(req, { authInfo: authInfoOf(ctx), parsedBody: body });
    },
  };
}

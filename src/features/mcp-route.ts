/**
 * /mcp: the MCP endpoint, both protocol eras (2025 `initialize` clients and 2026-07-28 clients),
 * stateless — one server and transport per request, JSON answers unless a client that reads
 * SSE asks for something to be streamed. In front of it: the Host check (PUBLIC_URL's host name
 * or a loopback name, else 403), the Origin check (a browser page from anywhere but PUBLIC_URL
 * and MCP_ALLOWED_ORIGINS is refused with 403) and CORS for the allowed ones. GET and DELETE
 * (streams and sessions) are 405: nothing is kept between requests.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import { ApiError } from "../domain/errors.js";
import { JSON_BODY_MAX_BYTES } from "../domain/limits.js";
import { bufferedBodyText } from "../http/buffered-body.js";
import { errorJson } from "../http/errors.js";
import { smallBody } from "../http/middleware/body-limit.js";
import { withEarlyHeaders } from "../http/middleware/early-headers.js";
import type { Router } from "../http/router.js";
import type { McpServices } from "../mcp/context.js";
import type { JsonAnswer } from "../mcp/fast-path.js";
import type { McpEndpoint } from "../mcp/handler.js";
import { checkOrigin, corsHeaders, hostRefusal, preflightHeaders } from "../mcp/origin.js";

/** The endpoint in the OpenAPI document (its tools are described by tools/list, not here). */
function document(app: Router, tools: readonly string[]) {
  app.openAPIRegistry.registerComponent("securitySchemes", "agentKey", {
    type: "http",
    scheme: "bearer",
    description: "An agent key (pak_…) or a connected app's access token. Never a wallet key.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "agentKeyInUrl", {
    type: "apiKey",
    in: "query",
    name: "key",
    description: "For MCP clients that accept only a URL: ?key=pak_… (agent keys only).",
  });
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/mcp",
    operationId: "mcp",
    tags: ["MCP"],
    summary: "MCP server (Streamable HTTP, stateless JSON-RPC)",
    description: `The ${tools.length} tools for assistants (${tools.join(", ")}): see tools/list and docs/mcp.md. Refusals are tool results with isError and the REST error body; a missing, unknown or revoked key is a 401 before any JSON-RPC.`,
    security: [{ agentKey: [] }, { agentKeyInUrl: [] }],
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: { type: "object", example: { jsonrpc: "2.0", id: 1, method: "tools/list" } },
          },
        },
      },
    },
    responses: {
      200: {
        description:
          "A JSON-RPC response; for a batch (revisions that have them), an array of responses. A client that reads SSE may get `text/event-stream` when it asked for progress.",
        content: {
          "application/json": { schema: { type: "object" } },
          "text/event-stream": { schema: { type: "string" } },
        },
      },
      202: {
        description:
          "Accepted: the body held only notifications or responses, which have no answer.",
      },
      400: {
        description:
          "A wallet key or access token in the URL, the key sent twice, or a body that is not JSON (JSON-RPC -32700).",
      },
      401: { description: "Missing, unknown or revoked key (WWW-Authenticate: Bearer …)." },
      403: {
        description:
          "A wallet key (assistants use an agent key with a limit); a Host that is not PUBLIC_URL's or a loopback name (JSON-RPC -32000); a browser Origin not allowed.",
      },
      405: { description: "GET and DELETE: the endpoint is stateless (Allow: POST)." },
      415: { description: "Content-Type is not application/json (JSON-RPC -32000)." },
    },
  });
}

/**
 * Why this request may not reach /mcp — a Host that is not this server's (403, a JSON-RPC
 * error as the SDK's host check answers) or a browser page from an origin not allowed (403,
 * thrown) — else the CORS headers an allowed origin's answer carries (undefined: no Origin).
 */
function gateOf(hosts: ReadonlySet<string>, origins: ReadonlySet<string>) {
  return (c: Context): { refused: Response } | { cors: Record<string, string> | undefined } => {
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    const wrongHost = hostRefusal(host, hosts);
    if (wrongHost) {
      const error = { code: -32000, message: wrongHost };
      return { refused: c.json({ jsonrpc: "2.0", error, id: null }, 403) };
    }
    const origin = c.req.header("origin") ?? null;
    const verdict = checkOrigin(origin, origins);
    if (verdict === "refused") {
      throw new ApiError(
        "forbidden",
        `Origin ${origin} may not call /mcp. Browser clients must be served from this server's PUBLIC_URL or an origin the operator lists in MCP_ALLOWED_ORIGINS; desktop and server-side clients send no Origin.`,
      );
    }
    return { cors: verdict === "allowed" && origin !== null ? corsHeaders(origin) : undefined };
  };
}

/**
 * Runs `answer` behind the JSON body limit and with an allowed origin's CORS headers. The
 * common call — no Origin, Content-Length within the limit — runs it directly: no middleware
 * layers, no web stream made of the body (@hono/node-server reads a body straight from the
 * socket unless something asks for the stream); chunked bodies are counted by smallBody.
 */
async function limited(
  c: Context,
  cors: Record<string, string> | undefined,
  answer: () => Promise<Response>,
): Promise<Response> {
  const length = Number(c.req.header("content-length"));
  const sized = Number.isSafeInteger(length) && c.req.header("transfer-encoding") === undefined;
  if (sized && length <= JSON_BODY_MAX_BYTES && !cors) return answer();
  const run = async () => {
    c.res = await answer();
  };
  const counted = async () => {
    await (sized && length <= JSON_BODY_MAX_BYTES ? run() : smallBody(c, run));
  };
  await (cors ? withEarlyHeaders(c, cors, counted) : counted());
  return c.res;
}

const JSON_TYPE = { "Content-Type": "application/json" } as const;

/**
 * The answer made through Hono, so it takes the headers middleware prepared before the route
 * (early-headers.ts): a JSON answer's text, or a JSON Response read back; an SSE stream as is.
 */
async function throughHono(c: Context, res: Response | JsonAnswer): Promise<Response> {
  if (!(res instanceof Response)) return c.body(res.json, res.status, JSON_TYPE);
  const type = res.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) return res;
  const headers = Object.fromEntries(res.headers);
  // cast: the MCP SDK's response status, passed through as it is
  if (res.body === null) return c.body(null, res.status as StatusCode, headers);
  // cast: the MCP SDK's response status, passed through as it is
  return c.body(await res.text(), res.status as ContentfulStatusCode, headers);
}

export function registerMcpRoute(
  app: Router,
  services: McpServices,
  opts: { allowedOrigins: ReadonlySet<string>; allowedHosts: ReadonlySet<string> },
) {
  // Named from the operations themselves, so the document lists the tools tools/list shows.
  document(
    app,
    services.operations.flatMap((op) => (op.contract.mcp ? [op.contract.mcp.name] : [])),
  );
  const gate = gateOf(opts.allowedHosts, opts.allowedOrigins);
  // The MCP SDK is loaded with the first MCP request, not with every process; once loaded,
  // a request goes straight to it.
  let loading: Promise<McpEndpoint> | undefined;
  let endpoint: McpEndpoint | undefined;
  const answer = (c: Context) => async () => {
    if (!endpoint) {
      loading ??= import("../mcp/handler.js").then((m) => m.createMcpEndpoint(services));
      endpoint = await loading;
    }
    // A body of known size (small: see limited) is taken as Node holds it, when all there.
    const bodyText = bufferedBodyText(c, Number(c.req.header("content-length")));
    return throughHono(c, await endpoint.handle(c.req.raw, c.get("requestId"), bodyText));
  };
  // The gate in the POST route itself, not as a middleware in front: every MCP call takes
  // this route, and each middleware layer is work on every call.
  app.post("/mcp", async (c) => {
    const gated = gate(c);
    return "refused" in gated ? gated.refused : limited(c, gated.cors, answer(c));
  });
  app.options("/mcp", (c) => {
    const gated = gate(c);
    if ("refused" in gated) return gated.refused;
    const origin = c.req.header("origin");
    const headers = gated.cors && origin ? preflightHeaders(origin) : {};
    return c.body(null, 204, { Allow: "POST, OPTIONS", ...headers });
  });
  const notHere = new ApiError(
    "method_not_allowed",
    "The MCP endpoint is stateless: send JSON-RPC with POST /mcp (no streams or sessions).",
    {},
    { headers: { Allow: "POST" } },
  );
  for (const method of ["get", "delete"] as const) {
    app[method]("/mcp", async (c) => {
      const gated = gate(c);
      if ("refused" in gated) return gated.refused;
      return limited(c, gated.cors, async () => errorJson(c, notHere));
    });
  }
}

/**
 * POST /mcp: Streamable HTTP, stateless, JSON responses — one server and transport per
 * request. Clients that send `Accept: application/json` only are accepted (the SDK alone
 * would answer 406). GET and DELETE (streams and sessions) are 405: this server is stateless.
 */
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import { ApiError } from "../domain/errors.js";
import { errorJson } from "../http/errors.js";
import { smallBody } from "../http/middleware/body-limit.js";
import type { Router } from "../http/router.js";
import type { McpServices } from "../mcp/context.js";

/** The endpoint in the OpenAPI document (its tools are described by tools/list, not here). */
function document(app: Router) {
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
    description:
      "The 13 tools for assistants (get_prices, quote_restore, create_restore, start_restore, get_restore, make_clip, start_clip, get_clip, list_clips, cancel_job, get_balance, create_top_up_link, top_up_with_usdc): see tools/list and docs/mcp.md. Refusals are tool results with isError and the REST error body; a missing, unknown or revoked key is a 401 before any JSON-RPC.",
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
        description: "A JSON-RPC response.",
        content: { "application/json": { schema: { type: "object" } } },
      },
      400: { description: "A wallet key in the URL, or the key sent twice." },
      401: { description: "Missing, unknown or revoked key (WWW-Authenticate: Bearer …)." },
      403: { description: "A wallet key: assistants use an agent key with a limit." },
      405: { description: "GET and DELETE: the endpoint is stateless (Allow: POST)." },
    },
  });
}

export function registerMcpRoute(app: Router, services: McpServices) {
  document(app);
  // The MCP SDK is loaded with the first MCP request, not with every process.
  let handler: Promise<typeof import("../mcp/handler.js")> | undefined;
  app.post("/mcp", smallBody, async (c) => {
    handler ??= import("../mcp/handler.js");
    const res = await (await handler).handleMcp(c.req.raw, services, c.get("requestId"));
    // The SDK answers in JSON (no streams here): made again through Hono, the answer takes the
    // headers prepared before the route as it is made, instead of being rebuilt around a stream
    // to add them (see http/middleware/early-headers.ts).
    const headers = Object.fromEntries(res.headers);
    if (res.body === null) return c.body(null, res.status as StatusCode, headers);
    return c.body(await res.text(), res.status as ContentfulStatusCode, headers);
  });
  const notHere = new ApiError(
    "method_not_allowed",
    "The MCP endpoint is stateless: send JSON-RPC with POST /mcp (no streams or sessions).",
    {},
    { headers: { Allow: "POST" } },
  );
  app.get("/mcp", (c) => errorJson(c, notHere));
  app.delete("/mcp", (c) => errorJson(c, notHere));
}

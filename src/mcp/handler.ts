/**
 * One MCP request: the caller's key or token, then a server and a stateless transport built
 * for this request alone (a stateless transport cannot be reused), JSON responses.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import type { AppEnv } from "../http/env.js";
import { mcpCaller } from "./auth.js";
import type { McpServices } from "./context.js";
import { createMcpServer } from "./server.js";

/** The request as the transport wants it: both media types accepted, the body re-readable. */
function forTransport(req: Request, body: string): Request {
  const headers = new Headers(req.headers);
  const accept = headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    headers.set("accept", "application/json, text/event-stream");
  }
  return new Request(req.url, { method: "POST", headers, body, signal: req.signal });
}

export async function handleMcp(c: Context<AppEnv>, services: McpServices): Promise<Response> {
  const caller = await mcpCaller(services.platform, c.req.raw, services.platform.publicUrl);
  const server = createMcpServer({
    ...services,
    ...caller,
    requestId: c.get("requestId"),
    signal: c.req.raw.signal,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const body = await c.req.text();
    return await transport.handleRequest(forTransport(c.req.raw, body));
  } finally {
    await server.close();
  }
}

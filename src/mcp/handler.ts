/**
 * One MCP request: the caller's key or token, then a server and a stateless transport built
 * for this request alone (a stateless transport cannot be reused), JSON responses.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
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

/** Answers one POST /mcp; framework-free (a web-standard Request in, a Response out). */
export async function handleMcp(
  req: Request,
  services: McpServices,
  requestId: string,
): Promise<Response> {
  const { deps } = services;
  const caller = await mcpCaller(deps, req, deps.publicUrl);
  const server = createMcpServer({ ...services, ...caller, requestId, signal: req.signal });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const body = await req.text();
    return await transport.handleRequest(forTransport(req, body));
  } finally {
    await server.close();
  }
}

/**
 * The 2025-era leg (`initialize`, then plain JSON-RPC; revisions 2024-11-05 to 2025-11-25),
 * stateless: a fresh server and transport per request, from the same server definition the
 * 2026-07-28 leg uses. Wired by hand rather than through the SDK's own fallback, which always
 * answers in SSE and refuses (406) a client that accepts only JSON: here the answer is one
 * JSON body unless the client accepts SSE *and* something may be streamed to it (the request
 * asks for progress), so JSON-only clients keep working and the common answer stays cheap.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { McpContext } from "./context.js";
import { invalidParams, jsonRpcError } from "./json-rpc.js";
import { createMcpServer } from "./server.js";

/** The only revision that had JSON-RPC batches: added in 2025-03-26, removed in 2025-06-18. */
const BATCH_REVISION = "2025-03-26";

/** Whether the client reads SSE (it lists `text/event-stream` in Accept). */
export function acceptsSse(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("text/event-stream");
}

/** Whether any request in the body asks for progress notifications. */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    // cast: any JSON-RPC message, read optionally down to the progress token
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta?.progressToken !== undefined;
  });
}

/**
 * A batch sent under a revision that no longer has them (the MCP-Protocol-Version header names
 * it; without the header a client is taken to speak 2025-03-26, as the spec says).
 */
function refusedBatch(body: unknown, version: string | undefined): Response | undefined {
  if (!Array.isArray(body) || version === undefined || version === BATCH_REVISION) return;
  return jsonRpcError(
    400,
    -32600,
    `Invalid Request: JSON-RPC batches were removed in protocol version 2025-06-18 and this request says ${version}; send one message per POST.`,
  );
}

/** The transport reads the request's headers only (the body comes parsed): both types accepted. */
function forTransport(req: Request): Request {
  const accept = req.headers.get("accept") ?? "";
  if (accept.includes("application/json") && accept.includes("text/event-stream")) return req;
  const headers = new Headers(req.headers);
  headers.set("accept", "application/json, text/event-stream");
  return new Request(req.url, { method: "POST", headers, signal: req.signal });
}

/** Runs `release` once the streamed body has been delivered, failed or been abandoned. */
function releasedAtEnd(res: Response, release: () => void): Response {
  // cast: the SDK's streamed (SSE) answer always has a body
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let released = false;
  const once = () => {
    if (!released) {
      released = true;
      release();
    }
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          once();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        once();
        controller.error(err);
      }
    },
    cancel(reason) {
      once();
      return reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

/** Answers one 2025-era POST whose JSON body (a message or a batch) is already parsed. */
export async function serveLegacy(req: Request, body: unknown, ctx: McpContext): Promise<Response> {
  const versionHeader = req.headers.get("mcp-protocol-version") ?? undefined;
  const refused = refusedBatch(body, versionHeader) ?? invalidParams(body);
  if (refused) return refused;
  const sse = acceptsSse(req);
  const server = createMcpServer(ctx, { era: "legacy", acceptsSse: sse, versionHeader });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !(sse && asksForProgress(body)),
  });
  await server.connect(transport);
  const release = () => void server.close().catch(() => {});
  const res = await transport.handleRequest(forTransport(req), { parsedBody: body });
  if (!res.body || !res.headers.get("content-type")?.startsWith("text/event-stream")) {
    release();
    return res;
  }
  req.signal.addEventListener("abort", release, { once: true });
  return releasedAtEnd(res, release);
}

/**
 * A small request body read straight from Node's request stream when it has all arrived — the
 * usual case for a JSON-RPC call, whose headers and body come in one packet — instead of
 * through the web-stream Request's `text()`, which waits for the stream's `data` and `end`
 * events a few ticks later. Measured on POST /mcp, that wait was part of what an MCP call
 * paid over GET /wallet (which has no body). Under any other server (tests' `app.request`),
 * or when part of the body is still on its way, it answers undefined and the caller reads the
 * body as usual.
 */
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

const utf8 = new TextDecoder();

/**
 * The whole body as text (decoded as Request.text() decodes it) when Node already holds all
 * `length` bytes of it (its Content-Length); undefined otherwise, NaN included. The body is
 * then consumed: read it once.
 */
export function bufferedBodyText(c: Context, length: number): string | undefined {
  // cast: @hono/node-server puts Node's IncomingMessage in c.env (Hono types env as the app's bindings)
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || !(length > 0) || incoming.readableDidRead) return;
  // A chunked body's bytes on the wire are not its length (Node refuses both headers at once).
  // Read through Hono's headers, already made for the route: Node's own `incoming.headers` would
  // be built a second time from the raw list (measured: a few µs a call).
  if (c.req.header("transfer-encoding") !== undefined) return;
  if (incoming.readableLength !== length || incoming.readableEncoding !== null) return;
  // All `length` bytes are buffered and no encoding is set: read() hands them over as one Buffer.
  // cast: all `length` bytes are buffered and no encoding is set: read() hands them over as one Buffer
  const chunk = incoming.read() as Buffer;
  // The whole message parsed (the usual case): emptied by read(), the stream ends by itself.
  // Otherwise flowing from here, so it ends when the parser gets there: either way the server
  // knows the body was read. (resume() when there is nothing left costs a tick of stream work.)
  if (!incoming.complete) incoming.resume();
  return utf8.decode(chunk);
}

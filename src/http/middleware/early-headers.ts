/**
 * Response headers a middleware knows before the route runs (a request id, rate-limit counts).
 *
 * Set before `next()`, Hono merges them into the route's response as it makes it. Set after,
 * Hono rebuilds the finished response around its body as a stream, and @hono/node-server then
 * loses its fast path for string bodies: each late header cost ~6 % of GET /wallet throughput.
 * A route that returns a Response of its own (a download, the MCP endpoint) does not take the
 * prepared headers, so whatever it lacks is added to it afterwards, the slow way.
 */
import type { Context, Next } from "hono";

export async function withEarlyHeaders(
  c: Context,
  headers: Record<string, string>,
  next: Next,
): Promise<void> {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  await next();
  for (const [name, value] of Object.entries(headers)) {
    if (!c.res.headers.has(name)) c.header(name, value);
  }
}

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

/** Sets headers that must be on the answer whatever the handler returns (rate limits). */
export async function withEarlyHeaders(
  c: Context,
  headers: Record<string, string>,
  next: Next,
): Promise<void> {
  const entries = Object.entries(headers);
  for (const [name, value] of entries) c.header(name, value);
  await next();
  // The prepared headers arrive together or not at all: checking the first one is enough.
  const first = entries[0];
  if (!first || c.res.headers.has(first[0])) return;
  for (const [name, value] of entries) c.header(name, value);
}

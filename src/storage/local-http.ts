/** What the local store's HTTP routes share: the error answer and reading a request's body. */
import { Readable } from "node:stream";
import type { Context } from "hono";
import { type ErrorCode, statusOf } from "../domain/error-codes.js";
import { nodeChunks, webChunks } from "./file-io.js";

/** An error answer `{detail, code}` with the code's status, never cached. */
export function fail(
  c: Context,
  code: ErrorCode,
  detail: string,
  headers: Record<string, string> = {},
) {
  return c.json({ detail, code }, statusOf(code), { "Cache-Control": "no-store", ...headers });
}

/**
 * The request body as chunks. Under @hono/node-server the raw Node request is fastest (no
 * web-stream layer); in-process `app.request` calls have only the web body.
 */
export function requestChunks(c: Context): AsyncIterable<Uint8Array> {
  // cast: @hono/node-server puts Node's IncomingMessage in c.env (Hono types env as the app's bindings)
  const incoming: unknown = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (incoming instanceof Readable) return nodeChunks(incoming);
  const body = c.req.raw.body;
  return body ? webChunks(body) : emptyChunks();
}

async function* emptyChunks(): AsyncIterable<Uint8Array> {}

/** Whether an error is the client going away mid-body. */
export function isClientAbort(err: unknown): boolean {
  // cast: any thrown value; its code and message are checked with typeof
  const e = err as { code?: unknown; message?: unknown } | null;
  return (
    e?.code === "ECONNRESET" || e?.code === "ERR_STREAM_PREMATURE_CLOSE" || e?.message === "aborted"
  );
}

/** A Content-Length header as a number; undefined when absent, NaN when malformed. */
export function contentLength(c: Context): number | undefined {
  const header = c.req.header("content-length");
  if (header === undefined) return undefined;
  return /^\d{1,16}$/.test(header) ? Number(header) : Number.NaN;
}

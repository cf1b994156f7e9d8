/**
 * PUTs through node:http(s), for Node: a byte range of a file piped to the socket as `curl -T`
 * would, without the web-stream layers a fetch body goes through (on a fast link those cost as much CPU as the SHA-256 of the part).
 * Answers a standard Response, so callers treat it as fetch's. Loaded only in Node.
 */
import { readSync } from "node:fs";
import { open } from "node:fs/promises";
import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

interface PutOptions {
  signal?: AbortSignal;
  /** Told the running count of bytes handed to the socket. */
  onBytes?: (sent: number) => void;
  /**
   * Spare read buffers shared by the PUTs of one upload: taken from here and given back once
   * the socket is done with them, so the parts of a file reuse the same few megabytes.
   */
  buffers?: Buffer[];
}

/** Bytes read from the file per chunk handed to the socket (as the bench's bare PUT reads). */
const SLICE_BYTES = 1024 * 1024;

/** PUTs bytes [start, end) of `file` to `url`; `onBytes` is told the running count sent. */
export function putFileRange(
  url: string,
  headers: Record<string, string>,
  file: string,
  start: number,
  end: number,
  opts: PutOptions,
): Promise<Response> {
  return put(url, headers, opts, (req) => {
    if (end === start) {
      req.end();
      return;
    }
    void pump(req, file, start, end, opts).catch((err: unknown) => req.destroy(asError(err)));
  });
}

/** Buffers read into and written from in turn: a few in flight, none allocated per chunk. */
const RING = 4;

/**
 * Reads [start, end) of `file` into a small ring of reused buffers and writes each to the
 * request, reusing a buffer only once the socket took it (the write's callback). A read stream
 * allocates a fresh 1 MiB buffer per chunk; over 2 GiB that was most of the client's GC.
 * Each read is synchronous (part-reader.ts says why): the ring waits on the socket, not on a
 * thread-pool round trip. The ring comes from `opts.buffers` and goes back there (only the
 * buffers the socket gave back: one a dropped request still holds is left to the collector):
 * a fresh ring per part was 1,024 page faults each, about 0.2 CPU s per 2 GiB in 64 MiB parts
 * on a machine where a fault on new memory costs ~16 µs.
 */
async function pump(
  req: ClientRequest,
  file: string,
  start: number,
  end: number,
  opts: PutOptions,
): Promise<void> {
  const fh = await open(file, "r");
  const spare = opts.buffers ?? [];
  const free: Buffer[] = Array.from(
    { length: RING },
    () => spare.pop() ?? Buffer.allocUnsafe(SLICE_BYTES),
  );
  try {
    let waiting: (() => void) | null = null;
    let failed: Error | null = null;
    const release = (buf: Buffer) => (err?: Error | null) => {
      if (err) failed ??= err;
      free.push(buf);
      waiting?.();
    };
    // A request destroyed (an abort, a dropped connection) may never call back: wake up and stop.
    req.once("close", () => waiting?.());
    let sent = 0;
    for (let at = start; at < end; ) {
      while (free.length === 0 && !failed && !req.destroyed) {
        await new Promise<void>((r) => (waiting = r));
      }
      waiting = null;
      const buf = free.pop();
      if (failed || req.destroyed || !buf) return;
      const bytesRead = readSync(fh.fd, buf, 0, Math.min(SLICE_BYTES, end - at), at);
      if (bytesRead === 0) throw new Error(`${file} is shorter than ${end} bytes`);
      at += bytesRead;
      sent += bytesRead;
      req.write(buf.subarray(0, bytesRead), release(buf));
      opts.onBytes?.(sent);
    }
    req.end();
    // The handle may close once every buffer is back (each write's callback ran).
    while (free.length < RING && !failed && !req.destroyed) {
      await new Promise<void>((r) => (waiting = r));
    }
  } finally {
    opts.buffers?.push(...free);
    await fh.close();
  }
}

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

function put(
  url: string,
  headers: Record<string, string>,
  opts: PutOptions,
  send: (req: ClientRequest) => void,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith("https:") ? httpsRequest : httpRequest;
    const req = request(url, { method: "PUT", headers, signal: opts.signal });
    req.on("error", reject);
    req.on("response", (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const body = chunks.length > 0 ? Buffer.concat(chunks) : null;
        resolve(new Response(body, { status: res.statusCode ?? 502, headers: out }));
      });
    });
    send(req);
  });
}

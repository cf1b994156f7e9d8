/**
 * PUTs through node:http(s), for Node: a byte range of a file piped to the socket as `curl -T`
 * would, without the web-stream layers a fetch body goes through (on a fast link those cost as much CPU as the SHA-256 of the part).
 * Answers a standard Response, so callers treat it as fetch's. Loaded only in Node.
 */
import { createReadStream } from "node:fs";
import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

interface PutOptions {
  signal?: AbortSignal;
  /** Told the running count of bytes handed to the socket. */
  onBytes?: (sent: number) => void;
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
    const stream = createReadStream(file, { start, end: end - 1, highWaterMark: SLICE_BYTES });
    let sent = 0;
    stream.on("data", (chunk) => {
      sent += chunk.length;
      opts.onBytes?.(sent);
    });
    stream.on("error", (err) => req.destroy(err));
    stream.pipe(req);
  });
}

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

/**
 * A PUT of a byte range of a file through node:http(s), for Node: the file piped to the socket
 * as `curl -T` would, without the web-stream layers a fetch body goes through (on a fast link
 * those cost as much CPU as the SHA-256 of the part). Answers a standard Response, so callers
 * treat it as fetch's. Loaded only in Node, only for a path source.
 */
import { createReadStream } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

/** PUTs bytes [start, end) of `file` to `url`; `onBytes` is told the running count sent. */
export function putFileRange(
  url: string,
  headers: Record<string, string>,
  file: string,
  start: number,
  end: number,
  opts: { signal?: AbortSignal; onBytes?: (sent: number) => void },
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
    if (end === start) {
      req.end();
      return;
    }
    const stream = createReadStream(file, { start, end: end - 1, highWaterMark: 1024 * 1024 });
    let sent = 0;
    stream.on("data", (chunk) => {
      sent += chunk.length;
      opts.onBytes?.(sent);
    });
    stream.on("error", (err) => req.destroy(err));
    stream.pipe(req);
  });
}

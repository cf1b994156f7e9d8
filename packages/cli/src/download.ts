/**
 * Saving a result: streamed to a temp file beside the destination and renamed into place only
 * when every byte arrived, so an interrupted download never leaves a truncated video under the
 * final name. Network errors and 5xx are retried from the start with back-off.
 */
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { backoffMs, sleep } from "@kinora/client";
import { ApiFailure, Interrupted, isAbort, NetworkFailure } from "./failures.js";
import { USER_AGENT } from "./http.js";

interface DownloadOptions {
  url: string;
  dest: string;
  signal?: AbortSignal;
  /** Called once the size is known (0 when the server does not say). */
  onStart?: (totalBytes: number) => void;
  onProgress?: (bytes: number) => void;
  onRetry?: (attempt: number, delayMs: number, reason: string) => void;
  maxAttempts?: number;
}

/** Downloads to `dest`; resolves with the size written. */
export async function downloadFile(opts: DownloadOptions): Promise<{ sizeBytes: number }> {
  const max = opts.maxAttempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    let reason: string;
    try {
      return await downloadOnce(opts);
    } catch (err) {
      if (opts.signal?.aborted || isAbort(err)) throw new Interrupted();
      const retryable =
        !(err instanceof ApiFailure) || err.status >= 500 || [408, 429].includes(err.status);
      if (!retryable) throw err;
      // cast: fetch rejects with an Error (a TypeError or an AbortError)
      reason = (err as Error).message;
      if (attempt >= max) {
        if (err instanceof ApiFailure) throw err;
        throw new NetworkFailure(`The download failed ${attempt} times; the last: ${reason}`);
      }
    }
    const delayMs = backoffMs(attempt);
    opts.onRetry?.(attempt, delayMs, reason);
    await sleep(delayMs, opts.signal).catch(() => {
      throw new Interrupted();
    });
  }
}

async function downloadOnce(opts: DownloadOptions): Promise<{ sizeBytes: number }> {
  const res = await fetch(opts.url, { headers: { "user-agent": USER_AGENT }, signal: opts.signal });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => "");
    let detail = `The download answered HTTP ${res.status}.`;
    try {
      // cast: an error body read leniently; a missing detail falls back to the status text
      detail = (JSON.parse(text) as { detail?: string }).detail ?? detail;
    } catch {
      // Not JSON (S3 XML, a proxy page): keep the status line.
    }
    throw new ApiFailure(res.status, { detail });
  }
  const total = Number(res.headers.get("content-length") ?? 0);
  opts.onStart?.(Number.isFinite(total) ? total : 0);
  const tmp = path.join(
    path.dirname(opts.dest),
    `.${path.basename(opts.dest)}.${randomBytes(4).toString("hex")}.part`,
  );
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      opts.onProgress?.(received);
      done(null, chunk);
    },
  });
  try {
    await pipeline(
      // cast: the DOM lib's and node:stream/web's ReadableStream are one class at run time, typed apart
      Readable.fromWeb(res.body as import("node:stream/web").ReadableStream),
      counter,
      createWriteStream(tmp, { flags: "wx" }),
      { signal: opts.signal },
    );
    if (total > 0 && received !== total) {
      throw new Error(`the connection closed after ${received} of ${total} bytes`);
    }
    await rename(tmp, opts.dest);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return { sizeBytes: (await stat(opts.dest)).size };
}

/**
 * `dir/name.ext`, or `dir/name-2.ext`, `-3`… when that exists: a default name never overwrites
 * an earlier result. (A path the person typed with --out is used as given.)
 */
export function freePath(dir: string, fileName: string): string {
  const ext = path.extname(fileName);
  const base = fileName.slice(0, fileName.length - ext.length);
  let candidate = path.join(dir, fileName);
  for (let n = 2; existsSync(candidate); n++) candidate = path.join(dir, `${base}-${n}${ext}`);
  return candidate;
}

/**
 * Sending a file to a job's upload_url: one streamed PUT (never the whole file in memory) with
 * exactly the upload_headers and Content-Length, progress from the bytes handed to the socket.
 * Network errors and 5xx/408/429 answers are retried with exponential back-off, each retry
 * re-sending the whole file to the same URL (storage keeps nothing of a broken upload); any
 * other 4xx is final and carries the storage's own message. Upload links are one-shot: a 409
 * on a retry means an earlier attempt arrived whole and only its answer was lost, so the upload
 * counts as done and starting the job checks what arrived.
 */
import { createReadStream } from "node:fs";
import http from "node:http";
import https from "node:https";
import { ApiFailure, Interrupted, isAbort, NetworkFailure } from "./failures.js";
import { USER_AGENT } from "./http.js";
import { backoffMs, sleep } from "./timing.js";

interface UploadOptions {
  url: string;
  headers: Record<string, string>;
  file: string;
  sizeBytes: number;
  signal?: AbortSignal;
  /** Bytes sent so far in the current attempt (restarts at 0 on a retry). */
  onProgress?: (bytes: number) => void;
  /** Called before waiting `delayMs` to retry after `reason`. */
  onRetry?: (attempt: number, delayMs: number, reason: string) => void;
  /** Attempts in all, first included. */
  maxAttempts?: number;
  /** A socket that moves no byte for this long is treated as dropped. */
  idleTimeoutMs?: number;
}

const UPLOAD_MAX_ATTEMPTS = 6;
/** Longest storage error body we read (S3 XML or kinora JSON). */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

interface PutAnswer {
  status: number;
  body: string;
}

/** Uploads the file, retrying transient failures; resolves with the number of attempts made. */
export async function uploadFile(opts: UploadOptions): Promise<{ attempts: number }> {
  const max = opts.maxAttempts ?? UPLOAD_MAX_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    let reason: string;
    try {
      const answer = await putOnce(opts);
      if (answer.status >= 200 && answer.status < 300) return { attempts: attempt };
      if (answer.status === 409 && attempt > 1) return { attempts: attempt };
      const failure = new ApiFailure(answer.status, { detail: storageDetail(answer) });
      if (!retryableStatus(answer.status) || attempt >= max) throw failure;
      reason = `HTTP ${answer.status}`;
    } catch (err) {
      if (opts.signal?.aborted || isAbort(err)) throw new Interrupted();
      if (err instanceof ApiFailure) throw err;
      const message = networkReason(err);
      if (attempt >= max) {
        throw new NetworkFailure(`The upload failed ${attempt} times; the last: ${message}.`);
      }
      reason = message;
    }
    const delayMs = backoffMs(attempt);
    opts.onRetry?.(attempt, delayMs, reason);
    await sleep(delayMs, opts.signal).catch(() => {
      throw new Interrupted();
    });
  }
}

function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

function networkReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code} ${e.message}`.trim() : (e.message ?? String(err));
}

/** kinora's JSON `detail`, S3's XML `<Message>`, or the status line. */
function storageDetail(answer: PutAnswer): string {
  try {
    const detail = (JSON.parse(answer.body) as { detail?: unknown }).detail;
    if (typeof detail === "string") return `The upload was refused: ${detail}`;
  } catch {
    // Not JSON: maybe S3's XML.
  }
  const xml = /<Message>([^<]{1,500})<\/Message>/.exec(answer.body)?.[1];
  return `The upload was refused (HTTP ${answer.status})${xml ? `: ${xml}` : "."}`;
}

/**
 * Exactly the upload_headers plus our Content-Length (the link is bound to that size); a
 * Content-Length or Host among them is dropped rather than sent twice under another case.
 */
function putHeaders(given: Record<string, string>, sizeBytes: number): Record<string, string> {
  const headers: Record<string, string> = { "user-agent": USER_AGENT };
  for (const [name, value] of Object.entries(given)) {
    if (!["content-length", "host"].includes(name.toLowerCase())) headers[name] = value;
  }
  headers["content-length"] = String(sizeBytes);
  return headers;
}

/** One PUT of the whole file; resolves with the answer, rejects on a network error. */
function putOnce(opts: UploadOptions): Promise<PutAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(opts.url);
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(url, {
      method: "PUT",
      headers: putHeaders(opts.headers, opts.sizeBytes),
      signal: opts.signal,
    });
    const file = createReadStream(opts.file);
    let sent = 0;
    opts.onProgress?.(0);
    file.on("data", (chunk) => {
      sent += chunk.length;
      opts.onProgress?.(sent);
    });
    const fail = (err: Error) => {
      file.destroy();
      req.destroy();
      reject(err);
    };
    file.on("error", fail);
    req.on("error", fail);
    req.setTimeout(opts.idleTimeoutMs ?? 60_000, () =>
      fail(Object.assign(new Error("no progress for a minute"), { code: "ETIMEDOUT" })),
    );
    req.on("response", (res) => {
      // An early answer (e.g. 400 on the headers) ends the upload: stop reading the file.
      file.unpipe(req);
      file.destroy();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= ERROR_BODY_MAX_BYTES) chunks.push(chunk);
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", fail);
    });
    file.pipe(req);
  });
}

/**
 * Sending a file to an upload link: one PUT of the whole file with exactly the link's
 * `upload_headers` and its Content-Length (the link is bound to that size), streamed, with a
 * progress callback fed from the bytes handed to the connection. Network errors and 5xx/408/429
 * answers are retried (a 429/503's Retry-After honoured), each retry re-sending the whole file —
 * storage keeps nothing of a broken upload. Links are one-shot: a 409 on a retry means an earlier
 * attempt arrived whole and only its answer was lost, so the upload counts as done.
 */
import {
  describeFailure,
  errorFromResponse,
  isAbort,
  KinoraError,
  KinoraNetworkError,
} from "./errors.js";
import { backoffMs, type RetryOptions, retryAfterMs, sleep } from "./retry.js";

/** Where to upload: the answer of createRestore or createClip. */
export interface UploadTarget {
  upload_url?: string;
  upload_headers?: Record<string, string>;
}

/** A file path (Node only), a Blob/File, or bytes. */
export type UploadSource = string | Blob | Uint8Array | ArrayBuffer;

/** Options of an upload. */
export interface UploadOptions extends RetryOptions {
  signal?: AbortSignal;
  /** Bytes sent so far in the current attempt (back to 0 on a retry) and the total. */
  onProgress?: (sentBytes: number, totalBytes: number) => void;
  /** Called before waiting `delayMs` to retry after `reason`. */
  onRetry?: (attempt: number, delayMs: number, reason: string) => void;
  /** The fetch to use (the client passes its own). */
  fetch?: typeof fetch;
}

interface Opened {
  size: number;
  /** A fresh stream of the whole source, for each attempt. */
  stream(): Promise<ReadableStream<Uint8Array>>;
  /** The source itself, where the runtime cannot stream a request body. */
  blob?: Blob;
}

/**
 * Node's fetch streams request bodies (`duplex: "half"`), which is what gives progress; browsers
 * mostly do not (Chromium only over HTTP/2), so there a Blob is sent whole and progress jumps.
 */
const streamsRequestBodies = () =>
  // cast: feature test for Node in a library that also runs in browsers (no @types/node there)
  typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node ===
  "string";

async function open(source: UploadSource): Promise<Opened> {
  if (typeof source === "string") {
    // Loaded only for a path, so the package also runs where there is no node:fs.
    const { stat } = await import("node:fs/promises");
    const { createReadStream } = await import("node:fs");
    const { Readable } = await import("node:stream");
    const { size } = await stat(source);
    return {
      size,
      stream: async () =>
        // cast: Node's web ReadableStream and the DOM lib's are one class at run time, typed apart
        Readable.toWeb(createReadStream(source)) as unknown as ReadableStream<Uint8Array>,
    };
  }
  // cast: a Uint8Array is a BlobPart; TS 5.7's ArrayBufferLike generic no longer says so
  const blob = source instanceof Blob ? source : new Blob([source as BlobPart]);
  return { size: blob.size, stream: async () => blob.stream(), blob };
}

/** The stream, reporting the running byte count as the connection pulls it. */
function counted(
  stream: ReadableStream<Uint8Array>,
  onBytes: (sent: number) => void,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      sent += value.byteLength;
      controller.enqueue(value);
      onBytes(sent);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The link's headers, minus any Content-Length/Host (ours is set from the real size). */
function putHeaders(given: Record<string, string>, size: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!["content-length", "host"].includes(name.toLowerCase())) headers[name] = value;
  }
  headers["content-length"] = String(size);
  return headers;
}

const retryableStatus = (status: number) => status >= 500 || status === 408 || status === 429;

/** PUTs `source` to the target's upload link; resolves once the storage has it whole. */
export async function upload(
  target: UploadTarget,
  source: UploadSource,
  options: UploadOptions = {},
): Promise<void> {
  if (!target.upload_url) {
    throw new TypeError("upload: no upload_url (a job created with video_url needs no upload)");
  }
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const file = await open(source);
  const headers = putHeaders(target.upload_headers ?? {}, file.size);
  const maxRetries = options.maxRetries ?? 3;
  const signal = options.signal;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    options.onProgress?.(0, file.size);
    const body =
      file.blob && !streamsRequestBodies()
        ? file.blob
        : counted(await file.stream(), (sent) => options.onProgress?.(sent, file.size));
    let reason: string;
    let asked: number | undefined;
    try {
      // cast: Node's fetch needs duplex for a streamed body; the DOM lib's RequestInit lacks the field
      const res = await doFetch(target.upload_url, {
        method: "PUT",
        headers,
        body,
        signal,
        duplex: "half",
      } as RequestInit);
      if (res.ok || (res.status === 409 && attempt > 1)) {
        await res.body?.cancel();
        options.onProgress?.(file.size, file.size);
        return;
      }
      const error = await errorFromResponse("upload", res);
      if (!retryableStatus(res.status) || attempt > maxRetries) throw error;
      reason = `HTTP ${res.status}`;
      asked = retryAfterMs(res.headers.get("retry-after"));
    } catch (err) {
      if (err instanceof KinoraError) throw err;
      if (isAbort(err, signal)) throw signal?.reason ?? err;
      if (attempt > maxRetries) throw new KinoraNetworkError("upload", err);
      reason = describeFailure(err);
    }
    const delay = asked ?? backoffMs(attempt, options.retryBaseMs);
    options.onRetry?.(attempt, delay, reason);
    await sleep(delay, signal);
  }
}

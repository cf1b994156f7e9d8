/**
 * A caller's URL streamed to a file under the same guard as safe-fetch.ts (public addresses
 * only, pinned connections, every redirect re-checked, one deadline), for files too large to
 * hold in memory (a `video_url` of up to 2 GB). Added caps: the response's Content-Type must be
 * one the caller accepts (`acceptType`), Content-Length and the streamed count at most
 * `maxBytes`, and a server that sends nothing for `idleMs` is given up on. A failed fetch
 * leaves no file behind.
 */
import { open, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ImageFetchError } from "./fetch-errors.js";
import type { ResolvedAddress, Target } from "./public-target.js";
import {
  describeNetworkError,
  followPublicUrl,
  type HopOutcome,
  openRequest,
  REDIRECT_STATUSES,
  type SafeFetchOptions,
} from "./safe-fetch.js";

/** Bounds of a streamed fetch to a file: size, idle time, whole time. */
export interface StreamFetchOptions
  extends Omit<SafeFetchOptions, "allowedContentTypes" | "caForTests"> {
  /** No byte (nor the response's head) for this long ends the fetch. */
  idleMs: number;
  /** The Accept header sent. */
  accept: string;
  /**
   * The type to keep for the response's Content-Type (lower-cased, parameters dropped, "" when
   * absent), or null to refuse it; `typeHint` names what is accepted in the refusal.
   */
  acceptType(type: string): string | null;
  typeHint: string;
  /** Told of the bytes written so far and the announced total (null when not announced). */
  onProgress?(bytes: number, totalBytes: number | null): void;
}

interface StreamedFile {
  bytes: number;
  /** The type acceptType kept. */
  contentType: string;
  finalUrl: string;
}

/** Fetches `url` into `destPath`. Throws ImageFetchError (its code says why) or the signal's reason. */
export async function fetchPublicToFile(
  url: string,
  destPath: string,
  opts: StreamFetchOptions,
): Promise<StreamedFile> {
  try {
    const { value, finalUrl } = await followPublicUrl(url, opts, (target, addresses, signal) =>
      streamOnce(target, addresses, signal, destPath, opts),
    );
    return { ...value, finalUrl };
  } catch (err) {
    await rm(destPath, { force: true });
    throw err;
  }
}

type Streamed = Omit<StreamedFile, "finalUrl">;

function fieldOf(opts: StreamFetchOptions) {
  return opts.field ?? "url";
}

function megabytes(bytes: number): string {
  const mb = bytes / 1024 ** 2;
  return mb >= 1024 ? `${(mb / 1024).toFixed(mb % 1024 ? 1 : 0)} GB` : `${Math.ceil(mb)} MB`;
}

function tooLarge(opts: StreamFetchOptions) {
  return new ImageFetchError(
    "too_large",
    `${fieldOf(opts)} serves more than ${megabytes(opts.maxBytes)}; give a smaller ${opts.noun ?? "file"}.`,
  );
}

/** One GET: the redirect target, or the body written to destPath once the response checks out. */
function streamOnce(
  target: Target,
  addresses: ResolvedAddress[],
  signal: AbortSignal,
  destPath: string,
  opts: StreamFetchOptions,
): Promise<HopOutcome<Streamed>> {
  const field = fieldOf(opts);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let settled = false;
    const req = openRequest(target, addresses, opts.accept);
    const idle = new AbortController();
    let idleTimer: NodeJS.Timeout | undefined;
    const stalled = () => {
      const sec = Math.round(opts.idleMs / 100) / 10;
      idle.abort(
        new ImageFetchError(
          "timeout",
          `${field} sent nothing for ${sec} s; give a URL that serves the ${opts.noun ?? "file"} steadily.`,
        ),
      );
    };
    const touch = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(stalled, opts.idleMs);
    };
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(idleTimer);
      signal.removeEventListener("abort", onAbort);
      idle.signal.removeEventListener("abort", onIdle);
      req.destroy();
      outcome();
    };
    const fail = (err: unknown) => finish(() => reject(err));
    // While the body is written, the pipeline watches both signals and fails once its file is
    // closed (so nothing writes after the caller removes it).
    let writing = false;
    const onAbort = () => writing || fail(signal.reason);
    const onIdle = () => writing || fail(idle.signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    idle.signal.addEventListener("abort", onIdle, { once: true });
    touch();
    req.on("error", (err: NodeJS.ErrnoException) => {
      const why = describeNetworkError(err.code);
      fail(
        new ImageFetchError("network", `${field} could not be fetched (${why}); check the URL.`),
      );
    });
    req.on("response", (res) => {
      touch();
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        return finish(() => resolve({ redirect: location }));
      }
      const refusal = responseRefusal(res, opts);
      if (refusal) return fail(refusal);
      const stream = AbortSignal.any([signal, idle.signal]);
      writing = true;
      writeBody(res, destPath, opts, touch, stream).then(
        (value) => finish(() => resolve({ value })),
        (err) => fail(stream.aborted ? stream.reason : err),
      );
    });
    req.end();
  });
}

/** The response's Content-Type without parameters, lower-cased; "" when absent. */
function mediaType(res: IncomingMessage): string {
  return (res.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Why the response's head is not acceptable (status, type, announced size); null when it is. */
function responseRefusal(res: IncomingMessage, opts: StreamFetchOptions): ImageFetchError | null {
  const field = fieldOf(opts);
  const status = res.statusCode ?? 0;
  if (status !== 200) {
    return new ImageFetchError(
      "http_status",
      `${field} answered HTTP ${status}; give a URL that serves the ${opts.noun ?? "file"} itself.`,
    );
  }
  const type = mediaType(res);
  if (opts.acceptType(type) === null) {
    return new ImageFetchError(
      "bad_type",
      `${field} served ${type || "no Content-Type"}, not ${opts.typeHint}; give a URL that serves the ${opts.noun ?? "file"} itself.`,
    );
  }
  const announced = Number(res.headers["content-length"]);
  if (Number.isFinite(announced) && announced > opts.maxBytes) return tooLarge(opts);
  return null;
}

/** Streams the body into destPath, counting and capping bytes; the count must match Content-Length. */
async function writeBody(
  res: IncomingMessage,
  destPath: string,
  opts: StreamFetchOptions,
  touch: () => void,
  signal: AbortSignal,
): Promise<Streamed> {
  // responseRefusal accepted this type already.
  // cast: acceptType returned a type (not null) or threw: it refuses anything it does not accept
  const contentType = opts.acceptType(mediaType(res)) as string;
  const announced = Number(res.headers["content-length"]);
  const total = Number.isFinite(announced) ? announced : null;
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      touch();
      bytes += chunk.length;
      if (bytes > opts.maxBytes) return done(tooLarge(opts));
      opts.onProgress?.(bytes, total);
      done(null, chunk);
    },
  });
  // Open the file before piping: a write stream opens it lazily, and one that failed early could
  // create the file after the caller removed it.
  const file = await open(destPath, "w");
  try {
    await pipeline(res, count, file.createWriteStream(), { signal });
  } catch (err) {
    if (err instanceof ImageFetchError || signal.aborted) throw err;
    throw cutShort(opts);
  }
  if (total !== null && bytes !== total) throw cutShort(opts);
  return { bytes, contentType };
}

function cutShort(opts: StreamFetchOptions) {
  return new ImageFetchError(
    "network",
    `${fieldOf(opts)} closed the connection before the whole ${opts.noun ?? "file"} arrived; check the URL and try again.`,
  );
}

/**
 * A video_url job's input, fetched by the worker that runs it: streamed from the caller's URL
 * into the attempt's scratch folder under the SSRF guard (public addresses only, each redirect
 * re-checked, 2 GB, a whole-fetch deadline and a stall limit, an accepted video type), then
 * stored as the job's input through a ticket — so a retry, and a remote engine that reads the
 * input URL, find it in storage. A fetch that fails is the caller's URL's fault: the job ends
 * failed (and refunded) with error_code video_fetch_failed, not retried.
 */

import { WorkError, type WorkItem } from "../../../jobs/work.js";
import { ImageFetchError } from "../../../net/safe-fetch.js";
import { fetchPublicToFile } from "../../../net/safe-stream.js";
import { type FetchLike, uploadOutput } from "../../../workers/transfer.js";
import { RESTORE_FETCH } from "../rules/limits.js";
import { VIDEO_CONTENT_TYPES } from "../rules/pricing.js";
import type { RestoreWorkParams } from "../services/definition.js";
import type { VideoFetchSeam } from "../services/deps.js";

type Source = NonNullable<RestoreWorkParams["source"]>;

/** Types a server names when it does not say what the bytes are. */
const GENERIC_TYPES = new Set(["", "application/octet-stream", "binary/octet-stream"]);
const VIDEO_TYPES = new Set<string>(VIDEO_CONTENT_TYPES);
const TYPE_HINT = `a video (${VIDEO_CONTENT_TYPES.slice(0, 4).join(", ")}, …; application/octet-stream only when content_type was declared)`;

/** Share of the job's progress the fetch takes. */
export const FETCH_PROGRESS = 0.1;

/** A video_url's file as fetched into storage: size and type. */
export interface FetchedInput {
  bytes: number;
  contentType: string;
}

const fetchFailed = (message: string) =>
  new WorkError({ kind: "final", message, code: "video_fetch_failed" });

const sizeMismatch = (served: string, declared: number) =>
  `video_url served ${served} bytes but size was declared as ${declared}; create a new job with the real size, or without size.`;

/** Fetches the source to `destPath` and stores it as the job's input. */
export async function fetchSourceVideo(opts: {
  fetchImpl: FetchLike;
  item: WorkItem<RestoreWorkParams>;
  source: Source;
  destPath: string;
  seam: VideoFetchSeam;
  signal: AbortSignal;
  progress(fraction: number): void;
}): Promise<FetchedInput> {
  const { source, seam } = opts;
  const fetched = await fetchPublicToFile(source.url, opts.destPath, {
    maxBytes: source.maxBytes,
    timeoutMs: seam.timeoutMs ?? RESTORE_FETCH.timeoutMs,
    idleMs: seam.idleMs ?? RESTORE_FETCH.idleMs,
    maxRedirects: RESTORE_FETCH.maxRedirects,
    field: "video_url",
    noun: "video",
    accept: "video/*, application/octet-stream;q=0.5",
    acceptType: (type) =>
      VIDEO_TYPES.has(type) ? type : GENERIC_TYPES.has(type) ? source.declaredType : null,
    typeHint: TYPE_HINT,
    signal: opts.signal,
    lookup: seam.lookup,
    allowPrivateForTests: seam.allowPrivateForTests,
    allowLoopback: seam.allowLoopback,
    onProgress: (bytes, total) => {
      if (total) opts.progress(FETCH_PROGRESS * Math.min(1, bytes / total));
    },
  }).catch((err) => {
    // With a declared size that size is the cap: over it, the size given is what is wrong.
    if (err instanceof ImageFetchError && err.code === "too_large" && source.expectBytes !== null)
      throw fetchFailed(sizeMismatch(`more than ${source.expectBytes}`, source.expectBytes));
    if (err instanceof ImageFetchError) throw fetchFailed(err.message);
    throw err;
  });
  if (source.expectBytes !== null && fetched.bytes !== source.expectBytes) {
    throw fetchFailed(sizeMismatch(String(fetched.bytes), source.expectBytes));
  }
  // The input's ticket comes from the same endpoint as the result's, by its own signed token.
  await uploadOutput(
    opts.fetchImpl,
    { outputUrl: opts.item.outputUrl, outputHeaders: source.storeHeaders },
    opts.destPath,
    fetched.contentType,
    opts.signal,
    // A fetched input is at most RESTORE_FETCH.maxBytes (2 GiB): one PUT on every store.
    { inParts: false },
  );
  opts.progress(FETCH_PROGRESS);
  return { bytes: fetched.bytes, contentType: fetched.contentType };
}

/**
 * Sending a job's result in parts, when the output ticket answered an upload in parts (a result
 * above the server's single-upload size: S3 takes at most 5 GiB in one PUT, and a long tape's
 * restore is larger). Four parts in flight; each part's SHA-256 read first (its link is bound
 * to it), then its bytes streamed from the file; a part that fails is tried again with back-off;
 * the parts are joined by the server. A worker that gives up aborts the upload, so nothing is
 * left at the store. In-process and remote workers alike: only URLs and the output token.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { inLanes, oneTo } from "../domain/lanes.js";
import { recordOf } from "../domain/records.js";
import type { WorkItem } from "../jobs/work.js";
import { requestBodyOf, type StreamedRequestInit } from "../net/web-streams.js";

/** fetch, or a test's stand-in (the same shape as transfer.ts's FetchLike). */
type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

/** What the output ticket answers for a result in parts. */
export const resultUploadSchema = z.object({
  upload_id: z.string(),
  part_size_bytes: z.number(),
  part_count: z.number(),
});
export type ResultUpload = z.infer<typeof resultUploadSchema>;

/** Where one part goes (output-part's answer). */
const partLinkSchema = z.object({ url: z.string(), headers: z.record(z.string(), z.string()) });
/** What output-complete answers. */
const completedSchema = z.object({ size_bytes: z.number() });

/** Parts in flight at once: enough to keep a link busy while the next part is hashed. */
const PARTS_IN_FLIGHT = 4;
/** Tries of one part before the upload is given up. */
const PART_TRIES = 3;
/** Back-off before the second and third try, in ms. */
const BACKOFF_MS = [1000, 3000];

type Item = Pick<WorkItem, "outputUrl" | "outputHeaders">;

/** The worker API's call `name` (output-part, output-complete, output-abort) beside the ticket. */
async function call(
  fetchImpl: FetchLike,
  item: Item,
  name: string,
  body: unknown,
  signal: AbortSignal,
) {
  const res = await fetchImpl(new URL(name, item.outputUrl).toString(), {
    method: "POST",
    headers: { ...item.outputHeaders, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) {
    const text = await res.text();
    throw Object.assign(new Error(`${name} answered ${res.status}: ${text}`), {
      status: res.status,
    });
  }
  const answer: unknown = await res.json();
  return answer;
}

/** Base64 SHA-256 of bytes [start, end] (inclusive) of the file. */
async function rangeSha256(filePath: string, start: number, end: number): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(filePath, { start, end, highWaterMark: 1024 * 1024 }), hash);
  return hash.digest("base64");
}

/** Sends part `n` once: its link, its bytes, then the ETag its PUT answered, to the record. */
async function sendPart(
  fetchImpl: FetchLike,
  item: Item,
  filePath: string,
  up: ResultUpload & { size: number },
  n: number,
  signal: AbortSignal,
): Promise<void> {
  const start = (n - 1) * up.part_size_bytes;
  const end = Math.min(start + up.part_size_bytes, up.size) - 1;
  const sha256 = await rangeSha256(filePath, start, end);
  const link = partLinkSchema.parse(
    await call(
      fetchImpl,
      item,
      "output-part",
      { upload_id: up.upload_id, part_number: n, sha256 },
      signal,
    ),
  );
  const init: StreamedRequestInit = {
    method: "PUT",
    headers: { ...link.headers, "content-length": String(end - start + 1) },
    body: requestBodyOf(createReadStream(filePath, { start, end })),
    duplex: "half",
    signal,
  };
  const put = await fetchImpl(link.url, init);
  const etag = put.headers.get("etag");
  if (!put.ok || !etag) {
    const text = await put.text();
    throw Object.assign(new Error(`part ${n} upload answered ${put.status}: ${text}`), {
      status: put.ok ? 502 : put.status,
    });
  }
  await put.body?.cancel().catch(() => {});
  const sent = { upload_id: up.upload_id, part_number: n, etag, sha256 };
  await call(fetchImpl, item, "output-part-sent", sent, signal);
}

/** A refusal no retry changes (the token expired, the upload is gone, a part is refused). */
const isFinal = (err: unknown) => {
  const status = recordOf(err).status;
  return (
    typeof status === "number" && status >= 400 && status < 500 && status !== 408 && status !== 429
  );
};

async function sendPartWithRetries(...args: Parameters<typeof sendPart>) {
  const signal = args[5];
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendPart(...args);
    } catch (err) {
      if (signal.aborted || isFinal(err) || attempt >= PART_TRIES) throw err;
      await new Promise((r) => setTimeout(r, BACKOFF_MS[attempt - 1] ?? 3000));
    }
  }
}

/** Sends the file's parts and has the server join them; answers the result's size. */
export async function sendResultInParts(
  fetchImpl: FetchLike,
  item: Item,
  filePath: string,
  size: number,
  upload: ResultUpload,
  signal: AbortSignal,
): Promise<number> {
  const up = { ...upload, size };
  // The first part that fails for good stops the others (no bytes sent for nothing).
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const send = async (n: number) => {
    try {
      await sendPartWithRetries(fetchImpl, item, filePath, up, n, both);
    } catch (err) {
      stop.abort();
      throw err;
    }
  };
  try {
    await inLanes(oneTo(up.part_count), send, { lanes: PARTS_IN_FLIGHT, signal });
    const done = await call(
      fetchImpl,
      item,
      "output-complete",
      { upload_id: up.upload_id },
      signal,
    );
    return completedSchema.parse(done).size_bytes;
  } catch (err) {
    // Nothing of a result given up stays at the store (retention would abort it later anyway).
    await call(
      fetchImpl,
      item,
      "output-abort",
      { upload_id: up.upload_id },
      AbortSignal.timeout(30_000),
    ).catch(() => {});
    throw err;
  }
}

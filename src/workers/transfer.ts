/**
 * How executors move files using only URLs: download the input with a byte cap, and store the
 * result through the work item's output ticket (POST outputUrl → presigned PUT of exactly the
 * result's size). Used by in-process and remote workers alike.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { WorkError, type WorkItem } from "../jobs/work.js";
import { nodeReadableOf, requestBodyOf, type StreamedRequestInit } from "../net/web-streams.js";
import { resultUploadSchema, sendResultInParts } from "./output-parts.js";

/** fetch, or a test's stand-in. */
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

/** Downloads url to destPath, refusing more than maxBytes. 404/403/410 are final (the file is gone). */
export async function downloadInput(
  fetchImpl: FetchLike,
  url: string,
  destPath: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<number> {
  const res = await fetchImpl(url, { signal });
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => {});
    if ([403, 404, 410].includes(res.status)) {
      throw new WorkError({
        kind: "final",
        message: "The uploaded file is no longer available; create a new job and upload it again.",
      });
    }
    throw new Error(`input download answered ${res.status}`);
  }
  let bytes = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) done(new Error(`input is larger than the declared ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(nodeReadableOf(res.body), cap, createWriteStream(destPath), { signal });
  } catch (err) {
    await rm(destPath, { force: true });
    throw err;
  }
  return bytes;
}

/** What the output ticket answers: one link for the whole result, or an upload in parts. */
const ticketSchema = z.union([
  z.object({ upload: resultUploadSchema }),
  z.object({
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    upload: z.undefined().optional(),
  }),
]);

/**
 * Stores the file through the ticket endpoint and headers (a job's result); returns its size.
 * Above the server's single-upload size the result goes in parts (output-parts.ts), unless
 * `inParts` is false (a fetched input, which is never larger than one PUT takes).
 */
export async function uploadOutput(
  fetchImpl: FetchLike,
  item: Pick<WorkItem, "outputUrl" | "outputHeaders">,
  filePath: string,
  contentType: string,
  signal: AbortSignal,
  opts: { inParts?: boolean } = {},
): Promise<number> {
  const { size } = await stat(filePath);
  const ticketRes = await fetchImpl(item.outputUrl, {
    method: "POST",
    headers: { ...item.outputHeaders, "content-type": "application/json" },
    body: JSON.stringify({
      size_bytes: size,
      content_type: contentType,
      ...(opts.inParts === false ? {} : { parts_ok: true }),
    }),
    signal,
  });
  if (!ticketRes.ok) {
    throw new Error(`output ticket answered ${ticketRes.status}: ${await ticketRes.text()}`);
  }
  const ticket = ticketSchema.parse(await ticketRes.json());
  // A result above the server's single-upload size goes in parts (S3 takes 5 GiB in one PUT).
  if (ticket.upload) {
    return sendResultInParts(fetchImpl, item, filePath, size, ticket.upload, signal);
  }
  const init: StreamedRequestInit = {
    method: "PUT",
    headers: { ...ticket.headers, "content-length": String(size) },
    body: requestBodyOf(createReadStream(filePath)),
    duplex: "half",
    signal,
  };
  const put = await fetchImpl(ticket.url, init);
  if (!put.ok) throw new Error(`output upload answered ${put.status}: ${await put.text()}`);
  return size;
}

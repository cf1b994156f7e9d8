/**
 * How executors move files using only URLs: download the input with a byte cap, and store the
 * result through the work item's output ticket (POST outputUrl → presigned PUT of exactly the
 * result's size). Used by in-process and remote workers alike.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { WorkError, type WorkItem } from "../jobs/work.js";
import { type ResultUpload, sendResultInParts } from "./output-parts.js";

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
    await pipeline(
      Readable.fromWeb(res.body as unknown as WebReadableStream),
      cap,
      createWriteStream(destPath),
      { signal },
    );
  } catch (err) {
    await rm(destPath, { force: true });
    throw err;
  }
  return bytes;
}

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
  const ticket = (await ticketRes.json()) as
    | { url: string; headers: Record<string, string>; upload?: undefined }
    | { upload: ResultUpload };
  // A result above the server's single-upload size goes in parts (S3 takes 5 GiB in one PUT).
  if (ticket.upload) {
    return sendResultInParts(fetchImpl, item, filePath, size, ticket.upload, signal);
  }
  const put = await fetchImpl(ticket.url, {
    method: "PUT",
    headers: { ...ticket.headers, "content-length": String(size) },
    body: Readable.toWeb(createReadStream(filePath)) as unknown as BodyInit,
    duplex: "half",
    signal,
  } as RequestInit);
  if (!put.ok) throw new Error(`output upload answered ${put.status}: ${await put.text()}`);
  return size;
}

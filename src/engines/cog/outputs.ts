/**
 * Saving a prediction's file output to disk. Cog returns files as data URLs by default, or
 * as URLs when the server uploads them (`--upload-url`, Replicate's delivery URLs); models
 * that yield several files give an array.
 *
 * Output URLs come from the operator-configured model server, a trusted party, so they are
 * fetched directly (a GPU box on a private network is normal); caller-supplied URLs go
 * through net/safe-fetch instead. Only http(s) and data: are accepted, with a byte cap,
 * into a temporary file renamed on success so a partial file never appears at destPath.
 */
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { isRecord } from "../../domain/records.js";
import { nodeReadableOf } from "../../net/web-streams.js";

export class CogOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CogOutputError";
  }
}

interface SaveOutputOptions {
  maxBytes: number;
  fetchImpl?: typeof fetch;
  signal?: AbortSignal;
  /** Extra request headers for URL outputs (e.g. auth for the model server's own files). */
  headersFor?: (url: URL) => Record<string, string>;
}

interface SavedOutput {
  sizeBytes: number;
  contentType: string | null;
  source: "url" | "data";
}

const VIDEO_EXT = /\.(mp4|m4v|mov|webm|mkv)(\?|#|$)/i;

function looksLikeVideo(ref: string): boolean {
  if (ref.startsWith("data:")) return /^data:video\//i.test(ref);
  try {
    return VIDEO_EXT.test(new URL(ref).pathname);
  } catch {
    return false;
  }
}

/**
 * The file reference to save: the output itself if it is a string, the first video (else
 * the first string) of an array, or the `video` field of an object.
 */
export function pickOutputRef(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) {
    const refs = output.filter((o): o is string => typeof o === "string");
    const ref = refs.find(looksLikeVideo) ?? refs[0];
    if (ref) return ref;
  }
  if (isRecord(output)) {
    const video = output.video;
    if (typeof video === "string") return video;
  }
  throw new CogOutputError("The model's output has no file URL.");
}

function tooLarge(maxBytes: number) {
  return new CogOutputError(`The model's output is larger than ${maxBytes} bytes.`);
}

function decodeDataUrl(ref: string, maxBytes: number): { bytes: Buffer; contentType: string } {
  const comma = ref.indexOf(",");
  if (comma < 0) throw new CogOutputError("The model's output is a malformed data URL.");
  const meta = ref.slice(5, comma).split(";");
  const isBase64 = meta.at(-1)?.toLowerCase() === "base64";
  const contentType = meta[0] || "text/plain";
  const payload = ref.slice(comma + 1);
  // Check the size before decoding so a huge output is refused without a second copy.
  const estimate = isBase64 ? Math.floor((payload.length * 3) / 4) : payload.length;
  if (estimate > maxBytes + 3) throw tooLarge(maxBytes);
  const bytes = isBase64
    ? Buffer.from(payload, "base64")
    : Buffer.from(decodeURIComponent(payload));
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return { bytes, contentType };
}

/** Passes bytes through, failing once more than maxBytes went by; `seen()` counts them. */
function byteCap(maxBytes: number): { stream: Transform; seen: () => number } {
  let total = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, callback) {
      total += chunk.length;
      callback(total > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
  return { stream, seen: () => total };
}

async function download(url: URL, tmp: string, opts: SaveOutputOptions): Promise<SavedOutput> {
  const doFetch = opts.fetchImpl ?? fetch;
  const res = await doFetch(url, {
    headers: opts.headersFor?.(url) ?? {},
    signal: opts.signal,
    redirect: "follow",
  });
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel();
    throw new CogOutputError(`Downloading the model's output answered HTTP ${res.status}.`);
  }
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    await res.body.cancel();
    throw tooLarge(opts.maxBytes);
  }
  const cap = byteCap(opts.maxBytes);
  await pipeline(nodeReadableOf(res.body), cap.stream, createWriteStream(tmp), {
    signal: opts.signal,
  });
  return { sizeBytes: cap.seen(), contentType: res.headers.get("content-type"), source: "url" };
}

/**
 * Saves a prediction output (URL, array of URLs, data URL, or `{video}`) to destPath,
 * refusing anything over `maxBytes`.
 */
export async function saveOutput(
  output: unknown,
  destPath: string,
  opts: SaveOutputOptions,
): Promise<SavedOutput> {
  const ref = pickOutputRef(output);
  const tmp = `${destPath}.part-${randomBytes(6).toString("hex")}`;
  try {
    let saved: SavedOutput;
    if (/^data:/i.test(ref)) {
      const { bytes, contentType } = decodeDataUrl(ref, opts.maxBytes);
      await writeFile(tmp, bytes);
      saved = { sizeBytes: bytes.length, contentType, source: "data" };
    } else {
      let url: URL;
      try {
        url = new URL(ref);
      } catch {
        throw new CogOutputError("The model's output is not a URL.");
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new CogOutputError(
          `The model's output uses an unsupported scheme (${url.protocol}).`,
        );
      }
      saved = await download(url, tmp, opts);
    }
    await rename(tmp, destPath);
    return saved;
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

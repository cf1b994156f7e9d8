/**
 * What creating a restore from a `video_url` decides before any money moves: the URL is a
 * public http(s) target (checked without connecting — the worker fetches it, re-checking every
 * hop), and the file's name comes from the URL's path when none is given. Size and type are
 * learned when the worker fetches the file.
 */
import { ApiError } from "../../../domain/errors.js";
import { checkPublicUrl, ImageFetchError } from "../../../net/safe-fetch.js";
import { RESTORE_LIMITS } from "../rules/limits.js";
import type { VideoFetchSeam } from "./deps.js";

/** How long the DNS answer for a video_url may take at creation. */
const CHECK_TIMEOUT_MS = 5000;

/** Refuses (400 video_fetch_failed) a video_url that is not a public http(s) target. */
export async function checkVideoUrl(url: string, seam: VideoFetchSeam = {}): Promise<void> {
  try {
    await checkPublicUrl(url, {
      field: "video_url",
      timeoutMs: CHECK_TIMEOUT_MS,
      lookup: seam.lookup,
      allowPrivateForTests: seam.allowPrivateForTests,
      allowLoopback: seam.allowLoopback,
    });
  } catch (err) {
    if (err instanceof ImageFetchError) throw new ApiError("video_fetch_failed", err.message);
    throw err;
  }
}

/** The last path segment of the URL, decoded and made printable; "video" when there is none. */
export function filenameFromUrl(url: string): string {
  const segment = new URL(url).pathname.split("/").filter(Boolean).at(-1) ?? "";
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // A malformed escape: keep the segment as it was sent.
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  name = name.replace(/[\u0000-\u001f\u007f/\\]/g, "").trim();
  return name.slice(0, RESTORE_LIMITS.filenameMaxLength) || "video";
}

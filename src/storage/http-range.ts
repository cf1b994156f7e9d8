/**
 * Single byte-range requests (RFC 9110 §14): enough for resumable downloads
 * and video seeking. Multi-range and malformed headers are ignored and the
 * whole file is served, which the RFC allows and which every client handles.
 */

type RangeDecision =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/;

/**
 * Decides what to send for `rangeHeader` on a file of `sizeBytes`. When
 * `ifRangeMatches` is false (the client's copy is stale), the whole file is sent.
 */
export function decideRange(
  rangeHeader: string | undefined,
  sizeBytes: number,
  ifRangeMatches = true,
): RangeDecision {
  if (rangeHeader === undefined || !ifRangeMatches) return { kind: "full" };
  const match = SINGLE_RANGE.exec(rangeHeader.trim());
  if (!match) return { kind: "full" };
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return { kind: "full" };
  if (first === "") {
    // Suffix range: the last N bytes.
    const suffix = Number(last);
    if (suffix === 0 || sizeBytes === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, sizeBytes - suffix), end: sizeBytes - 1 };
  }
  const start = Number(first);
  const end = last === "" ? sizeBytes - 1 : Math.min(Number(last), sizeBytes - 1);
  if (last !== "" && Number(last) < start) return { kind: "full" };
  if (start >= sizeBytes) return { kind: "unsatisfiable" };
  return { kind: "partial", start, end };
}

/** If-Range carries either an ETag (compared strongly) or an HTTP date. */
export function ifRangeMatches(
  ifRange: string | undefined,
  etag: string,
  lastModified: Date,
): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"')) return value === etag;
  if (value.startsWith("W/")) return false;
  const date = Date.parse(value);
  // HTTP dates have whole seconds; the file must not have changed since.
  return !Number.isNaN(date) && Math.floor(lastModified.getTime() / 1000) * 1000 <= date;
}

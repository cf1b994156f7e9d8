/**
 * The parts' checksums, taken ahead of the sockets for an upload in parts (upload-parts.ts):
 * one part at a time, in the order the lanes will send them.
 */
import type { PartChecksumAlgorithm, PartReader } from "./part-reader.js";

/**
 * Hashes one part at a time, in the order asked. The hash runs on this thread either way; four
 * parts hashed side by side would all be ready at once, so no byte would go out until every
 * part in flight was hashed. In line, the first part is on the wire after one part's hash and
 * the next parts are hashed while it flows.
 */
export function hashLane(
  reader: PartReader,
  algorithm: PartChecksumAlgorithm,
): (start: number, end: number) => Promise<string> {
  let last: Promise<unknown> = Promise.resolve();
  return (start, end) => {
    const next = last.then(() => reader.checksum(algorithm, start, end));
    last = next.catch(() => {});
    return next;
  };
}

/**
 * The checksum of each part as the lanes take them, the next `ahead` parts of the queue hashed
 * before a lane asks (reading ahead of the sockets, in the order they will be sent).
 */
export function lookahead(
  queue: readonly number[],
  hash: (start: number, end: number) => Promise<string>,
  range: (n: number) => { start: number; end: number },
  ahead: number,
): (n: number) => Promise<string> {
  const started = new Map<number, Promise<string>>();
  const start = (n: number) => {
    let p = started.get(n);
    if (!p) {
      const r = range(n);
      p = hash(r.start, r.end);
      // Read errors surface when a lane awaits the part; unawaited ones (a stopped upload) are not unhandled.
      p.catch(() => {});
      started.set(n, p);
    }
    return p;
  };
  return (n) => {
    const mine = start(n);
    started.delete(n);
    for (const next of queue.slice(0, ahead)) start(next);
    return mine;
  };
}

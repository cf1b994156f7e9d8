/**
 * The parts' checksums and links, taken ahead of the sockets for an upload in parts
 * (upload-parts.ts): one part hashed at a time, in the order the lanes will send them.
 */
import type { PartChecksumAlgorithm, PartReader } from "./part-reader.js";

/**
 * Hashes one part at a time, in the order asked. On one hashing thread (hash-worker.ts) or on
 * this one, four parts hashed side by side would all be ready at once, so no byte would go out
 * until every part in flight was hashed. In line, the first part is on the wire after one
 * part's hash and the next parts are hashed while it flows.
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
 * What each part needs before its PUT (its checksum, its link), as the lanes take them: the
 * next `ahead` parts of the queue prepared before a lane asks (read and hashed ahead of the
 * sockets, their links asked for meanwhile, in the order they will be sent).
 */
export function lookahead<T>(
  queue: readonly number[],
  prepare: (n: number) => Promise<T>,
  ahead: number,
): (n: number) => Promise<T> {
  const started = new Map<number, Promise<T>>();
  const start = (n: number) => {
    let p = started.get(n);
    if (!p) {
      p = prepare(n);
      // Errors surface when a lane awaits the part; unawaited ones (a stopped upload) are not unhandled.
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

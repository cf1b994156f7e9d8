/**
 * Headroom in V8's old generation for the request bodies an API node receives.
 *
 * Each socket read of an upload's body is a new 64 KiB buffer outside the JavaScript heap, freed
 * by the next young-generation collection once the chunk is written. V8 counts the buffer
 * memory allocated since the last full collection against the old generation's limit, which it
 * sets after each full collection at its live size times a factor that falls towards 1.1 on a
 * small, busy heap: an API node holding ~32 MB had 9-20 MB of room left, which a few hundred
 * chunks between two young collections filled. Each time, V8 began a full mark-compact (freeing
 * nothing: 32.4 -> 32.4 MB), 60-440 of them per 2 GiB received, and the node spent 5-7 CPU s per
 * 2 GiB where it otherwise spends 1.7-2.4 (one PUT at 190-450 MB/s against 780-1,050). Which
 * state a node was in changed from run to run (`npm run bench -- parts` with `--trace-gc`,
 * 2026-12-01).
 *
 * A fixed growing factor of 3 (`--heap-growing-percent=200`; V8 picks 1.1-4 by itself) leaves
 * the old generation twice its live size of room: 11 mark-compacts in a whole bench run, warm-up
 * included, against 400-1,100, and no round in the slow state in two runs of five rounds each.
 * The cost is memory the node may hold before a full collection: three times its live heap,
 * ~100 MB for a node with 32 MB live.
 */
import v8 from "node:v8";
import { DEFAULT_UPLOAD_HEAP_GROWING_PERCENT } from "../config/storage.js";

/**
 * Sets V8's heap growing factor for this process (an API node) to `percent` (the
 * UPLOAD_HEAP_GROWING_PERCENT setting; 0 leaves V8 to choose), unless node was started with its
 * own `--heap-growing-percent` (a V8 flag NODE_OPTIONS does not accept). True when it was set
 * here. V8 reads the flag each time it computes the limit, so setting it after start-up works.
 */
export function giveHeapHeadroomForUploads(
  percent: number = DEFAULT_UPLOAD_HEAP_GROWING_PERCENT,
  execArgv: readonly string[] = process.execArgv,
): boolean {
  if (percent <= 0) return false;
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent/.test(arg))) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
  return true;
}

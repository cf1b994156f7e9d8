/**
 * Work over a list with a few items in flight at once: each lane takes the next item in the
 * list's order when its last one is done, so a slow item holds up one lane, not the others. Used
 * where the items are independent I/O (parts of an upload, objects copied to a bucket, part
 * records read from disk). Pure scheduling: what an item does and how it is retried is the
 * caller's.
 */

/** How `inLanes` runs: how many at once, and a signal that stops it taking more. */
export interface LanesOptions {
  /** Items in flight at most: 1 or more (anything else is refused with a RangeError). */
  lanes: number;
  /** Once aborted, no lane takes another item; `inLanes` then rejects with its reason. */
  signal?: AbortSignal;
}

/**
 * Runs `work` on every item, `lanes` at a time. The first failure stops the lanes taking more
 * and is thrown once every item already begun has ended, so nothing is still running when the
 * caller learns of it (a part still being written while the caller cleans up). A caller whose
 * running items should stop at a failure aborts them itself from `work` (its own signal).
 */
export async function inLanes<T>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
  { lanes, signal }: LanesOptions,
): Promise<void> {
  // A count that is not a number would make no lanes at all: nothing done, and no error said.
  if (!(lanes >= 1)) throw new RangeError(`lanes must be a number from 1 up, got ${lanes}`);
  let next = 0;
  // The first failure, kept in an object: set inside the lanes, read after them.
  const stopped: { failure?: { error: unknown } } = {};
  const lane = async () => {
    while (!stopped.failure && !signal?.aborted && next < items.length) {
      const index = next++;
      try {
        // cast: index < items.length (the loop's condition)
        await work(items[index] as T, index);
      } catch (error) {
        stopped.failure ??= { error };
      }
    }
  };
  const count = Math.min(Math.floor(lanes), items.length);
  await Promise.all(Array.from({ length: count }, lane));
  if (stopped.failure) throw stopped.failure.error;
  signal?.throwIfAborted();
}

/** The whole numbers from 1 to `count` (part numbers), for `inLanes`. */
export function oneTo(count: number): number[] {
  return Array.from({ length: Math.max(0, count) }, (_, i) => i + 1);
}

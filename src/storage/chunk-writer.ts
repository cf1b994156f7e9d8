/**
 * Writes a stream's chunks to an open file while the next ones are still arriving. Awaiting
 * each small write before reading on (one 64 KiB socket read, one thread-pool round trip)
 * left the socket idle during every write and the disk idle during every read. Here one write
 * is in flight at a time, the chunks that arrived meanwhile go out together in one writev, and
 * at most `maxHeldBytes` are held in memory: beyond that the reader waits, which pauses the
 * socket (so a fast client cannot grow the process).
 *
 * For a durable file it also starts a datasync every `syncEveryBytes`, so the page cache is
 * written back while the upload is still arriving and the final fsync finds only the tail
 * left to write, instead of the whole file at the end (~0.4-0.8 s for 512 MB here).
 *
 * Writers sharing one file (the parts of an upload, written in place) share a `gate`, so the
 * file sees one write at a time: the kernel takes the file's lock for each buffered write, and
 * four threads writing at once spent their waits spinning on it. They share a `writeBack` count
 * too, so the file is written back every `syncEveryBytes` whoever wrote them, as one upload's
 * file is, not by each writer on its own.
 */
import type { FileHandle } from "node:fs/promises";

/**
 * Runs tasks one at a time, in the order given (a task's failure is its caller's alone).
 * Writers of one file share one (see `createChunkWriter`).
 */
export type SerialGate = <T>(task: () => Promise<T>) => Promise<T>;

/** A gate for the writers of one file. */
export function createSerialGate(): SerialGate {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task);
    tail = run.catch(() => {});
    return run;
  };
}

/**
 * The bytes written to one file since its last background write-back, and whether one is
 * running; shared by the file's writers (see `createChunkWriter`).
 */
export interface WriteBackCount {
  unsynced: number;
  syncing: boolean;
}

/** A write-back count for the writers of one file. */
export function createWriteBackCount(): WriteBackCount {
  return { unsynced: 0, syncing: false };
}

/** A client sending tiny chunks must not queue millions of them under the byte cap. */
const MAX_QUEUED_CHUNKS = 1024;

interface ChunkWriterOptions {
  /** Bytes queued or being written before `write` makes the caller wait. */
  maxHeldBytes: number;
  /** Start a background datasync after this many bytes were written since the last one. */
  syncEveryBytes?: number;
  /**
   * Write from this byte of the file on (a part of an upload written in place), not at the
   * handle's own position.
   */
  position?: number;
  /** Shared by every writer of the same file: one write at a time on it. */
  gate?: SerialGate;
  /**
   * Shared by every writer of the same file: `syncEveryBytes` counts the file's bytes, not this
   * writer's, and one write-back runs at a time (the writer that starts it waits for it).
   */
  writeBack?: WriteBackCount;
}

/** What `copyLimited` writes through: the page cache's writer here, or direct-writer.ts's. */
export interface ChunkWriter {
  /** Queues a chunk (kept by reference, not copied); waits only while too much is held. */
  write(chunk: Uint8Array): Promise<void>;
  /**
   * Queues a chunk without a promise when there is room (a stream read by its events pays no
   * promise per chunk): null, or what to wait for before offering more. Throws a write's error.
   */
  offer(chunk: Uint8Array): Promise<void> | null;
  /** Every queued byte written and any background sync done; rejects with the first error. */
  finish(): Promise<void>;
  /** Waits until nothing is in flight on the handle, ignoring errors (before closing it early). */
  settle(): Promise<void>;
}

export function createChunkWriter(fh: FileHandle, opts: ChunkWriterOptions): ChunkWriter {
  let queue: Uint8Array[] = [];
  let queuedBytes = 0;
  let heldBytes = 0;
  const count = opts.writeBack ?? createWriteBackCount();
  let failure: { error: unknown } | null = null;
  let position = opts.position;
  /** The batch being written; the next one starts when it settles. */
  let writing: Promise<void> | null = null;
  let syncing: Promise<void> | null = null;
  const fail = (error: unknown) => {
    failure ??= { error };
  };

  const maybeStartSync = (written: number) => {
    if (!opts.syncEveryBytes) return;
    count.unsynced += written;
    if (count.unsynced < opts.syncEveryBytes || count.syncing) return;
    count.unsynced = 0;
    count.syncing = true;
    // On this writer's handle: its finish (and settle) wait for it, so the handle stays open.
    syncing = fh
      .datasync()
      .catch(fail)
      .finally(() => {
        count.syncing = false;
        syncing = null;
      });
  };

  /** Takes every queued chunk and writes them in one writev. */
  const writeQueued = async () => {
    const batch = queue;
    const batchBytes = queuedBytes;
    queue = [];
    queuedBytes = 0;
    const at = position;
    if (position !== undefined) position += batchBytes;
    try {
      await writevAll(fh, batch, batchBytes, at);
    } finally {
      // Written or failed, the batch is no longer held (a failure ends the writer anyway).
      heldBytes -= batchBytes;
    }
    maybeStartSync(batchBytes);
  };

  const writeNextBatch = () => {
    if (writing || queue.length === 0 || failure) return;
    // Behind a gate the batch is taken when the gate opens: what arrived while other writers
    // had the file goes out in the same writev.
    writing = (opts.gate ? opts.gate(writeQueued) : writeQueued()).catch(fail).finally(() => {
      writing = null;
      writeNextBatch();
    });
  };

  const throwIfFailed = () => {
    if (failure) throw failure.error;
  };

  const idle = async () => {
    while (writing || syncing) await Promise.all([writing, syncing]);
  };

  const full = () => heldBytes > opts.maxHeldBytes || queue.length >= MAX_QUEUED_CHUNKS;
  const room = async () => {
    while (full() && writing) await writing;
    throwIfFailed();
  };
  const offer = (chunk: Uint8Array): Promise<void> | null => {
    throwIfFailed();
    if (chunk.byteLength === 0) return null;
    queue.push(chunk);
    queuedBytes += chunk.byteLength;
    heldBytes += chunk.byteLength;
    writeNextBatch();
    return full() && writing ? room() : null;
  };

  return {
    offer,
    async write(chunk) {
      await offer(chunk);
    },
    async finish() {
      await idle();
      throwIfFailed();
    },
    settle: idle,
  };
}

/**
 * writev until every byte is down (a regular file may take fewer bytes than asked), at the
 * handle's position or from `position` on.
 */
export async function writevAll(
  fh: FileHandle,
  buffers: Uint8Array[],
  total: number,
  position?: number,
): Promise<void> {
  let rest = buffers;
  let left = total;
  let at = position;
  while (left > 0) {
    const { bytesWritten } = at === undefined ? await fh.writev(rest) : await fh.writev(rest, at);
    left -= bytesWritten;
    if (at !== undefined) at += bytesWritten;
    if (left > 0) rest = skipBytes(rest, bytesWritten);
  }
}

function skipBytes(buffers: Uint8Array[], count: number): Uint8Array[] {
  let skip = count;
  let i = 0;
  // cast: i < buffers.length, checked in the loop condition
  while (i < buffers.length && skip >= (buffers[i] as Uint8Array).byteLength) {
    // cast: i < buffers.length, checked in the loop condition
    skip -= (buffers[i] as Uint8Array).byteLength;
    i++;
  }
  const rest = buffers.slice(i);
  if (skip > 0 && rest[0]) rest[0] = rest[0].subarray(skip);
  return rest;
}

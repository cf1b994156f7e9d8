/**
 * Writes an upload's bytes to disk with O_DIRECT, past the page cache, as object stores that
 * keep large objects on local disks do (MinIO writes its parts this way).
 *
 * Through the page cache, every byte of an upload is copied by the kernel into a page it must
 * first find, written back later, and then evicts whatever the machine had cached (a 30 GB tape
 * pushes out everything else). On this machine's virtual disk that copy and its write-back were
 * the largest cost of an upload: 2 GiB written 1 MiB at a time with a datasync every 32 MiB
 * took 4.5-7.8 s and 5.5-9.9 CPU s, the same bytes written directly 1.0-1.4 s and 0.2-0.3 CPU s
 * (2026-12-02); in `npm run bench -- parts` the kernel's copy into the page cache alone was
 * 1.1-4.6 CPU s of a 2 GiB upload, varying with how recently the host had backed the pages.
 *
 * Direct writes must start, end and sit in memory at aligned places, so the socket's chunks are
 * copied into a few page-aligned slots (aligned-slots.ts) and each slot is written whole; the
 * last, partial slot goes through the page cache (`buffered`, the same file's ordinary handle,
 * which the caller's fsync covers with everything else). The chunks themselves are let go at
 * once, so the socket's buffers no longer pile up until the collector runs. A filesystem or
 * device that refuses a direct write (EINVAL) gets the rest through the page cache.
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { DIRECT_ALIGN, giveSlots, SLOT_BYTES, takeSlots } from "./aligned-slots.js";
import { type ChunkWriter, writevAll } from "./chunk-writer.js";

/**
 * Slots one writer holds: one filling while the other is written (16 MiB per upload). Exported
 * for the tests (how many bytes a writer takes before it makes the socket wait).
 */
export const SLOTS_PER_WRITER = 2;
/**
 * Direct writes in flight per writer. A direct write returns when the device has the bytes, so
 * a writer that waits for each before the next leaves the device idle between them (the page
 * cache hid that); with 8 MiB slots the socket fills the next slot in longer than a write
 * takes, so one in flight keeps the device busy. Measured with 8 MiB slots, 2026-12-02 (two runs
 * of two rounds each way): three slots with two in flight, parts 450–499 MB/s; two slots with
 * one, 500–599. With 1 MiB slots, four parts each writing one at a time behind a shared gate read
 * 0.81 of one PUT's rate, without the gate 1.06 (one run of 4 rounds each, the same day).
 */
const MAX_IN_FLIGHT = 1;

/**
 * A second handle on `path` for direct writes, or null where there are none: no O_DIRECT on
 * this platform (macOS, Windows), or a filesystem that refuses it (tmpfs, some network ones).
 */
export async function openDirect(path: string): Promise<FileHandle | null> {
  const flag = constants.O_DIRECT;
  if (flag === undefined) return null;
  try {
    return await open(path, constants.O_WRONLY | flag);
  } catch (err) {
    // cast: a failed fs call throws Node's errno error; only its code is compared
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EINVAL" || code === "ENOTSUP" || code === "EOPNOTSUPP") return null;
    throw err;
  }
}

interface DirectWriterOptions {
  /** Where the bytes start in the file. */
  position: number;
  /** How many bytes at most will come (an upload's declared size). */
  maxBytes: number;
  /**
   * Sees the bytes in order, each chunk (or the piece of it that fits a slot) just after it is
   * copied into its slot (a part's checksum). Not a slot at a time: by the time an 8 MiB slot
   * is full its first bytes have left the CPU's caches, and reading them back costs more than
   * the checksum does. Copy, then CRC32 of the whole slot, 3.4-3.5 GB/s; CRC32 of each 64 KiB
   * chunk as it is copied, 5.0-5.3 (this machine, 2026-12-02); in `npm run bench -- parts`,
   * eight rounds interleaved in one run, the API node 1.76 CPU s a 2 GiB round against 2.09.
   */
  onStaged?: (bytes: Uint8Array) => void;
}

/**
 * A writer that stages chunks in aligned slots and writes them through `direct` (see the module
 * comment), or null when it cannot or need not: `position` not aligned, fewer bytes coming than
 * one slot holds (all of them would be the tail; a small upload does not hold 16 MiB of the
 * pool), or the slot pool spent; the caller then writes through the page cache. The bytes land
 * from `position` on, whatever either handle's own position is.
 */
export function createDirectWriter(
  direct: FileHandle,
  buffered: FileHandle,
  opts: DirectWriterOptions,
): ChunkWriter | null {
  if (opts.position % DIRECT_ALIGN !== 0 || opts.maxBytes < SLOT_BYTES) return null;
  const slots = takeSlots(SLOTS_PER_WRITER);
  if (!slots) return null;
  const free = [...slots];
  /** The slot being filled, and how far. */
  let current: Buffer | null = null;
  let filled = 0;
  /** Full slots not yet written, in file order from `nextAt`. */
  const full: Buffer[] = [];
  let nextAt = opts.position;
  /** Bytes offered while every slot was taken: copied in as slots come back. */
  const pending: Uint8Array[] = [];
  /** Writes in flight (each a batch of slots at its own place in the file). */
  const writing = new Set<Promise<void>>();
  let useDirect = true;
  let failure: { error: unknown } | null = null;
  let given = false;
  let waiters: (() => void)[] = [];

  const fail = (error: unknown) => {
    failure ??= { error };
  };
  const throwIfFailed = () => {
    if (failure) throw failure.error;
  };
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };

  /** Copies what fits into the slots; answers the rest, if any. */
  const copyIn = (chunk: Uint8Array): Uint8Array | null => {
    let off = 0;
    while (off < chunk.byteLength) {
      if (!current) {
        current = free.pop() ?? null;
        filled = 0;
        if (!current) return chunk.subarray(off);
      }
      const n = Math.min(chunk.byteLength - off, SLOT_BYTES - filled);
      const piece = off === 0 && n === chunk.byteLength ? chunk : chunk.subarray(off, off + n);
      current.set(piece, filled);
      opts.onStaged?.(piece);
      filled += n;
      off += n;
      if (filled === SLOT_BYTES) {
        full.push(current);
        current = null;
      }
    }
    return null;
  };

  const copyPending = () => {
    while (pending.length > 0) {
      // cast: pending.length > 0
      const rest = copyIn(pending[0] as Uint8Array);
      if (rest) {
        pending[0] = rest;
        return;
      }
      pending.shift();
    }
  };

  const writeSlots = async (batch: Buffer[], at: number) => {
    const bytes = batch.length * SLOT_BYTES;
    if (useDirect) {
      try {
        await writevAll(direct, batch, bytes, at);
        return;
      } catch (err) {
        // cast: a failed fs call throws Node's errno error; only its code is compared
        if ((err as NodeJS.ErrnoException).code !== "EINVAL") throw err;
        // Refused (an alignment this device wants larger): the same bytes, and all after
        // them, through the page cache.
        useDirect = false;
      }
    }
    await writevAll(buffered, batch, bytes, at);
  };

  const writeNext = () => {
    while (writing.size < MAX_IN_FLIGHT && full.length > 0 && !failure) {
      const batch = full.splice(0);
      const at = nextAt;
      nextAt += batch.length * SLOT_BYTES;
      const write: Promise<void> = writeSlots(batch, at)
        .catch(fail)
        .finally(() => {
          // Written or failed, nothing reads these slots any more.
          free.push(...batch);
          writing.delete(write);
          copyPending();
          writeNext();
          wake();
        });
      writing.add(write);
    }
  };

  const hasRoom = () => pending.length === 0 && (current !== null || free.length > 0);
  const room = async () => {
    while (!hasRoom() && !failure) await new Promise<void>((r) => waiters.push(r));
    throwIfFailed();
  };

  /** Every full slot written; then the partial one, through the page cache. */
  const drain = async () => {
    for (;;) {
      throwIfFailed();
      copyPending();
      writeNext();
      if (writing.size === 0) break;
      await Promise.race(writing);
    }
    if (current && filled > 0) {
      const tail = current.subarray(0, filled);
      await writevAll(buffered, [tail], tail.byteLength, nextAt);
      nextAt += tail.byteLength;
      free.push(current);
      current = null;
      filled = 0;
    }
  };

  const offer = (chunk: Uint8Array): Promise<void> | null => {
    throwIfFailed();
    if (chunk.byteLength === 0) return null;
    const rest = pending.length > 0 ? chunk : copyIn(chunk);
    if (rest) pending.push(rest);
    writeNext();
    return hasRoom() ? null : room();
  };

  return {
    offer,
    async write(chunk) {
      await offer(chunk);
    },
    async finish() {
      await drain();
      throwIfFailed();
    },
    async settle() {
      while (writing.size > 0) await Promise.all(writing);
      if (!given) {
        given = true;
        giveSlots(slots);
      }
    },
  };
}

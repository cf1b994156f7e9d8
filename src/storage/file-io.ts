/**
 * Writing a stream to disk so that the destination either holds every expected
 * byte or does not change at all: chunks go to a temp file beside it, and only
 * a complete file is renamed into place (rename is atomic within a directory).
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, link, mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { createChunkWriter, type SerialGate, type WriteBackCount } from "./chunk-writer.js";
import { createDirectWriter, openDirect } from "./direct-writer.js";

/**
 * Upload bytes held in memory between the socket and the disk (RSS stays flat), which also
 * bounds one writev. 1 MiB, not 4: the kernel spent about half as long on the same bytes in
 * writes of at most 1 MiB (2 GiB on the local store, the thread pool's CPU: one PUT 0.8-0.9 s
 * against 1.4-2.3, four parts into one file 0.9-1.0 against 1.9-2.3; `npm run bench -- parts`
 * with BENCH_THREADS=1, 2026-11-30). Parts gained most (855-932 MB/s against 533-847 where the
 * collector was quiet, 562-642 against 453-631 where it was busy); one PUT kept its rate. 256
 * and 512 KiB measured no better.
 */
const MAX_HELD_BYTES = 1024 * 1024;
/** A durable file is written back in the background every this many bytes (see chunk-writer). */
const SYNC_EVERY_BYTES = 32 * 1024 * 1024;

export type WriteOutcome =
  | { ok: true; bytes: number }
  | { ok: false; reason: "too_long" | "too_short" | "exists"; bytes: number };

interface WriteExactOptions {
  /** fsync the file and its directory before answering: set for stored objects, not scratch files. */
  durable: boolean;
  signal?: AbortSignal;
  /** Runs once the bytes are complete, just before the rename makes them visible. */
  beforeCommit?: () => Promise<void>;
  /** `expectedBytes` is a ceiling, not an exact size (an upload whose size was not declared). */
  upTo?: boolean;
  /** Never replace an existing file: a second writer gets `exists` (one-shot upload links). */
  noReplace?: boolean;
  /** Write past the page cache where the filesystem allows (direct-writer.ts). */
  direct?: boolean;
}

/** A dot-prefixed name beside `destPath`; keys never start with a dot, so it cannot clash. */
export function tempPathFor(destPath: string): string {
  return join(dirname(destPath), `.${basename(destPath)}.${randomBytes(6).toString("hex")}.part`);
}

/**
 * Streams `chunks` into `destPath`, which must receive exactly `expectedBytes`.
 * Stops reading as soon as the stream runs past that size. On any shortfall,
 * overflow, abort or error the temp file is removed and `destPath` is untouched.
 */
export async function writeExactlyAtomic(
  chunks: AsyncIterable<Uint8Array>,
  destPath: string,
  expectedBytes: number,
  opts: WriteExactOptions,
): Promise<WriteOutcome> {
  const dir = dirname(destPath);
  const tmp = tempPathFor(destPath);
  const fh = await openCreatingDir(tmp);
  let direct: FileHandle | null = null;
  let committed = false;
  try {
    direct = opts.direct ? await openDirect(tmp) : null;
    const outcome = await copyLimited(chunks, fh, expectedBytes, { ...opts, direct });
    if (!outcome.ok) return outcome;
    await direct?.close();
    direct = null;
    if (opts.durable) await fh.sync();
    await fh.close();
    await opts.beforeCommit?.();
    if (opts.noReplace) {
      // link() fails when the destination exists, so of two racing writers exactly one wins.
      // (The metadata written just before is bound by the same link, so it is the same.)
      const linked = await link(tmp, destPath).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === "EEXIST") return false;
          throw err;
        },
      );
      if (!linked) return { ok: false, reason: "exists", bytes: outcome.bytes };
      await rm(tmp, { force: true });
    } else {
      await rename(tmp, destPath);
    }
    committed = true;
    if (opts.durable) await syncDir(dir);
    return outcome;
  } finally {
    await direct?.close().catch(() => {});
    if (!committed) {
      await fh.close().catch(() => {});
      await rm(tmp, { force: true });
    }
  }
}

/** A delete may remove an emptied directory between our mkdir and open: try once more. */
async function openCreatingDir(path: string): Promise<FileHandle> {
  for (let attempt = 0; ; attempt++) {
    await mkdir(dirname(path), { recursive: true });
    try {
      return await open(path, "wx", 0o600);
    } catch (err) {
      // cast: a failed fs call throws Node's errno error; only its code is compared
      if (attempt > 0 || (err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
}

/**
 * Streams `chunks` into an open file: exactly `expectedBytes` (at most, with `upTo`), from
 * `position` on when given (a part written in place), stopping as soon as the stream runs past
 * the size, and at once when `signal` aborts, even while no chunk comes (a dead connection).
 * The caller owns the file: nothing is renamed or removed here.
 */
export async function copyLimited(
  chunks: AsyncIterable<Uint8Array>,
  fh: FileHandle,
  expectedBytes: number,
  opts: Pick<WriteExactOptions, "durable" | "signal" | "upTo"> & {
    position?: number;
    /** Bytes held between the source and the disk before reading waits (default 1 MiB). */
    maxHeldBytes?: number;
    /**
     * Sees the bytes in order as they are written (a part's checksum), without another stream
     * layer: each chunk as it comes; where they are written directly, just after it is copied
     * into its staging slot (in two pieces where a slot ends).
     */
    onChunk?: (chunk: Uint8Array) => void;
    /** Shared with the file's other writers (parts written in place): one write at a time. */
    gate?: SerialGate;
    /** Shared with the file's other writers: written back every 32 MiB of all theirs (durable). */
    writeBack?: WriteBackCount;
    /**
     * The same file opened for direct writes (direct-writer.ts `openDirect`): the bytes go
     * past the page cache where they can. Its position is `position`, else 0 (a new file).
     */
    direct?: FileHandle | null;
  },
): Promise<WriteOutcome> {
  // A direct writer shows `onChunk` each chunk as it copies it, while it is in the CPU's cache.
  const direct =
    opts.direct &&
    createDirectWriter(opts.direct, fh, {
      position: opts.position ?? 0,
      maxBytes: expectedBytes,
      onStaged: opts.onChunk,
    });
  const onChunk = direct ? undefined : opts.onChunk;
  const writer =
    direct ||
    createChunkWriter(fh, {
      maxHeldBytes: opts.maxHeldBytes ?? MAX_HELD_BYTES,
      syncEveryBytes: opts.durable ? SYNC_EVERY_BYTES : undefined,
      position: opts.position,
      gate: opts.gate,
      writeBack: opts.writeBack,
    });
  let bytes = 0;
  try {
    if (isNodeChunks(chunks)) {
      bytes = await readStreamInto(chunks.stream, writer, expectedBytes, {
        signal: opts.signal,
        onChunk,
      });
      if (bytes > expectedBytes) return { ok: false, reason: "too_long", bytes };
    } else {
      // An iterator is read a chunk at a time; wrapped, it ends at the abort even mid-wait.
      const source = opts.signal ? abortable(chunks, opts.signal) : chunks;
      for await (const chunk of source) {
        opts.signal?.throwIfAborted();
        bytes += chunk.byteLength;
        // Check before writing so an oversized body never reaches the disk.
        if (bytes > expectedBytes) return { ok: false, reason: "too_long", bytes };
        onChunk?.(chunk);
        await writer.write(chunk);
      }
    }
    await writer.finish();
  } finally {
    // On an early return or error, nothing may still be writing when the caller closes the file.
    await writer.settle();
  }
  opts.signal?.throwIfAborted();
  if (bytes < expectedBytes && !opts.upTo) return { ok: false, reason: "too_short", bytes };
  return { ok: true, bytes };
}

/** Makes a rename durable; some platforms cannot open a directory, which is harmless there. */
export async function syncDir(dir: string): Promise<void> {
  const dh = await open(dir, "r").catch(() => null);
  if (!dh) return;
  try {
    await dh.sync();
  } catch {
    // Not supported for directories on this platform: the rename is still atomic.
  } finally {
    await dh.close();
  }
}

/** A Node stream's chunks: iterable like any others, and read by `copyLimited` from its events. */
export interface NodeChunks extends AsyncIterable<Uint8Array> {
  readonly stream: Readable;
}

/**
 * A Node stream as chunks, without destroying it when the reader stops early:
 * the HTTP server can then still send our error response and drain the socket.
 */
export function nodeChunks(stream: Readable): NodeChunks {
  return { stream, [Symbol.asyncIterator]: () => stream.iterator({ destroyOnReturn: false }) };
}

/** Whether `chunks` came from `nodeChunks` (its stream can be read by events). */
function isNodeChunks(chunks: AsyncIterable<Uint8Array>): chunks is NodeChunks {
  return "stream" in chunks;
}

/**
 * Reads a Node stream by its `data` events into `writer`, pausing the stream while the writer
 * holds too much: no promise per chunk, where the stream's async iterator makes one or two (an
 * upload of 2 GiB in parts is ~50,000 socket reads of up to 64 KiB; the API node's JavaScript
 * per chunk was a third of what uploads in parts cost beyond one PUT). Resolves with the bytes
 * read, stopping (stream paused, not destroyed) as soon as they exceed `limit`; rejects on the
 * stream's error, a close before its end (as the iterator does: ERR_STREAM_PREMATURE_CLOSE), a
 * write's error, or `signal` (at once, even while no chunk comes).
 */
function readStreamInto(
  stream: Readable,
  writer: { offer(chunk: Uint8Array): Promise<void> | null },
  limit: number,
  opts: { signal?: AbortSignal; onChunk?: (chunk: Uint8Array) => void },
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let bytes = 0;
    let settled = false;
    const settle = (error: unknown, done?: number) => {
      if (settled) return;
      settled = true;
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.off("close", onClose);
      opts.signal?.removeEventListener("abort", onAbort);
      // Unread bytes stay in the stream: the server can still answer and drain the socket.
      if (!stream.readableEnded) stream.pause();
      if (error === undefined) resolve(done ?? bytes);
      else reject(error);
    };
    const onData = (chunk: Uint8Array) => {
      if (settled) return;
      bytes += chunk.byteLength;
      // Checked before writing, so an oversized body never reaches the disk.
      if (bytes > limit) return settle(undefined);
      try {
        opts.onChunk?.(chunk);
        const wait = writer.offer(chunk);
        if (!wait) return;
        stream.pause();
        wait.then(
          () => {
            if (!settled) stream.resume();
          },
          (err: unknown) => settle(err),
        );
      } catch (err) {
        settle(err);
      }
    };
    const onEnd = () => settle(undefined);
    const onError = (err: unknown) => settle(err);
    const onClose = () => {
      if (!stream.readableEnded) {
        settle(Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
      }
    };
    const onAbort = () => settle(opts.signal?.reason);
    if (opts.signal?.aborted) return onAbort();
    if (stream.readableEnded) return settle(undefined);
    if (stream.errored) return settle(stream.errored);
    if (stream.destroyed) return onClose();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
    stream.on("close", onClose);
    stream.resume();
  });
}

/** A web stream as chunks; stopping early cancels the stream. */
export async function* webChunks(body: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * `chunks`, ending with `signal`'s reason as soon as it aborts, even while waiting for a chunk
 * that never comes (a dead connection). An iterator object, not an async generator: a
 * generator layer costs its own promises per chunk, and a 64 MiB part is a thousand chunks.
 */
function abortable(
  chunks: AsyncIterable<Uint8Array>,
  signal: AbortSignal,
): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const it = chunks[Symbol.asyncIterator]();
      // One listener rejects whichever read is pending. (Not Promise.race against one
      // long-lived "aborted" promise: each race leaves a reaction on it that holds its chunk
      // until the part ends — 64 MiB per part in memory.)
      let rejectPending: ((reason: unknown) => void) | null = null;
      let finished = false;
      const onAbort = () => rejectPending?.(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      const stopListening = () => signal.removeEventListener("abort", onAbort);
      return {
        next() {
          if (signal.aborted) {
            stopListening();
            return Promise.reject(signal.reason);
          }
          return new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
            rejectPending = reject;
            it.next().then(
              (result) => {
                rejectPending = null;
                if (result.done) {
                  finished = true;
                  stopListening();
                }
                resolve(result);
              },
              (err: unknown) => {
                rejectPending = null;
                stopListening();
                reject(err);
              },
            );
          });
        },
        async return() {
          stopListening();
          // Stopped early by our reader: let the source clean up. After an abort a read may
          // still be pending, which `return` would wait behind for ever; the request is
          // dropped instead.
          if (!finished && !signal.aborted) await it.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

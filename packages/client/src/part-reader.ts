/**
 * The bytes of a file to upload in parts, part by part: a path in Node (hashed on a thread of
 * its own, hash-worker.ts, or here until it has started or where none starts, into one small
 * reused buffer; then read again into a ring of reused buffers as the socket takes them:
 * node-put.ts) or a Blob anywhere (CRC32 here, SHA-256 by WebCrypto). upload-parts.ts decides
 * what to send; this reads it.
 *
 * In Node both reads are synchronous, 1 MiB at a time, the event loop given a turn after each:
 * a read through libuv's thread pool costs a hand-over to a pool thread and a wake-up back
 * (1 GiB from the page cache: 217-279 ms of CPU against 132-145 read synchronously here), and
 * the upload is one of two processes sharing the CPU when both ends are on one machine. A
 * megabyte from a slow disk holds the loop a few milliseconds, which the other parts' sockets
 * ride out in their kernel buffers.
 *
 * A part is read twice (to hash, then to send) rather than held in memory between: a fresh
 * 64 MiB buffer per part in flight cost more in page faults (0.2 s of system time per part
 * here, 4 parts at once before the first byte went out) than a second read from the page
 * cache (about 0.07 s per 256 MiB), and the client's memory stays small whatever the part size.
 */
import { crc32Base64, crc32Js } from "./crc32.js";
import type { UploadSource } from "./upload.js";

/** The checksums a plan may ask parts to carry. */
export type PartChecksumAlgorithm = "crc32" | "sha256";

/** The bytes of one part of a source: hashed, then sent (as a stream in Node). */
export interface PartReader {
  size: number;
  /** The base64 checksum of bytes [start, end) in `algorithm`. */
  checksum(algorithm: PartChecksumAlgorithm, start: number, end: number): Promise<string>;
  body(start: number, end: number): Promise<BodyInit>;
  /** A PUT of the range without fetch (Node, a path): the file piped to the socket. */
  put?(
    url: string,
    headers: Record<string, string>,
    start: number,
    end: number,
    signal: AbortSignal,
    onBytes: (sent: number) => void,
  ): Promise<Response>;
  /** Lets go of what reading needed (Node: the hashing thread); the upload's end calls it. */
  close?(): Promise<void>;
}

/** Bytes read and hashed at a time: large enough that the thread-pool round trips are few. */
const HASH_READ_BYTES = 1024 * 1024;

const toBase64 = (bytes: Uint8Array) => {
  let text = "";
  // cast: i < bytes.length (the loop bound); this package has no checked reader of its own
  for (let i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i] as number);
  return btoa(text);
};

/** Ranges of a path (Node: hashed by @node-rs/crc32, zlib or node:crypto, then streamed) or of a Blob. */
export async function partReader(source: UploadSource): Promise<PartReader> {
  if (typeof source === "string") {
    const { open, stat } = await import("node:fs/promises");
    const { createReadStream, readSync } = await import("node:fs");
    const { Readable } = await import("node:stream");
    const { createHash } = await import("node:crypto");
    const zlibCrc32 = (await import("node:zlib")).crc32;
    const crc32 = (await nativeCrc32()) ?? zlibCrc32;
    const { putFileRange } = await import("./node-put.js");
    const { size } = await stat(source);
    // Hashed on a thread of its own where one starts (hash-worker.ts), else here.
    const worker = (await import("./hash-worker.js")).startHashWorker(
      source,
      typeof zlibCrc32 === "function",
    );
    // Hash buffers, reused from part to part: no garbage per megabyte hashed; and the send
    // rings' buffers likewise (node-put.ts).
    const spare: Buffer[] = [];
    const sendBuffers: Buffer[] = [];
    const stream = (start: number, end: number) =>
      createReadStream(source, { start, end: end - 1, highWaterMark: 1024 * 1024 });
    return {
      size,
      async checksum(algorithm, start, end) {
        // Until the thread is up (~65 ms here), on this thread: the first part goes out that
        // much sooner, and at most the second is hashed here while the first is sending. A
        // thread that failed to start leaves the hashing here too.
        if (worker?.ready) return worker.checksum(algorithm, start, end);
        const hash = nodeHasher(algorithm, createHash, crc32);
        const fh = await open(source, "r");
        const buf = spare.pop() ?? Buffer.allocUnsafe(HASH_READ_BYTES);
        try {
          for (let at = start; at < end; ) {
            const bytesRead = readSync(fh.fd, buf, 0, Math.min(buf.length, end - at), at);
            // The parts in flight write to their sockets between two megabytes hashed.
            await new Promise((r) => setImmediate(r));
            if (bytesRead === 0) throw new Error(`${source} is shorter than ${end} bytes`);
            hash.update(buf.subarray(0, bytesRead));
            at += bytesRead;
          }
        } finally {
          spare.push(buf);
          await fh.close();
        }
        return hash.digest();
      },
      body: async (start, end) =>
        end === start
          ? new Uint8Array(0)
          : // cast: Node's web ReadableStream and the DOM lib's are one class at run time, typed apart
            (Readable.toWeb(stream(start, end)) as unknown as ReadableStream<Uint8Array>),
      put: (url, headers, start, end, signal, onBytes) =>
        putFileRange(url, headers, source, start, end, { signal, onBytes, buffers: sendBuffers }),
      close: async () => worker?.close(),
    };
  }
  // cast: a Uint8Array is a BlobPart; TS 5.7's ArrayBufferLike generic no longer says so
  const blob = source instanceof Blob ? source : new Blob([source as BlobPart]);
  return {
    size: blob.size,
    async checksum(algorithm, start, end) {
      const bytes = await blob.slice(start, end).arrayBuffer();
      if (algorithm === "crc32") return crc32Base64(crc32Js(new Uint8Array(bytes)));
      const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
      return toBase64(new Uint8Array(digest));
    },
    body: async (start, end) => blob.slice(start, end),
  };
}

type Crc32Step = (data: Uint8Array, value?: number) => number;

/**
 * @node-rs/crc32 (carry-less multiply), an optional dependency, where its prebuilt binary
 * installed: 3.4-5.4 GB/s here against zlib.crc32's 1.0-1.3, about 1 CPU s less per 2 GiB sent
 * in parts. Undefined where it did not install (zlib's, or this package's own, then).
 */
async function nativeCrc32(): Promise<Crc32Step | undefined> {
  try {
    const { createRequire } = await import("node:module");
    const require = createRequire(import.meta.url);
    // cast: the package's declared export, checked with typeof below
    const mod = require("@node-rs/crc32") as { crc32?: unknown };
    if (typeof mod.crc32 !== "function") return undefined;
    // cast: @node-rs/crc32's crc32(input: Buffer | string, initialState?: number): number
    const native = mod.crc32 as (input: Buffer, initial?: number) => number;
    return (data, value = 0) =>
      // Sockets and file reads hand over Buffers already: only other views are wrapped.
      native(
        Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
        value,
      );
  } catch {
    return undefined;
  }
}

/** A streaming hasher in Node: @node-rs/crc32's or zlib's CRC32 (where this Node has it) or node:crypto's SHA-256. */
function nodeHasher(
  algorithm: PartChecksumAlgorithm,
  createHash: typeof import("node:crypto").createHash,
  crc32: Crc32Step | undefined,
): { update(chunk: Uint8Array): void; digest(): string } {
  if (algorithm === "sha256") {
    const hash = createHash("sha256");
    return { update: (chunk) => void hash.update(chunk), digest: () => hash.digest("base64") };
  }
  const step = crc32 ?? crc32Js;
  let crc = 0;
  return {
    update: (chunk) => {
      crc = step(chunk, crc);
    },
    digest: () => crc32Base64(crc),
  };
}

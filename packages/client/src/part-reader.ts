/**
 * The bytes of a file to upload in parts, part by part: a path in Node (read with node:fs,
 * hashed by node:crypto, a part held in memory once to hash and send it) or a Blob anywhere
 * (hashed by WebCrypto). upload-parts.ts decides what to send; this reads it.
 */
import type { UploadSource } from "./upload.js";

/**
 * Parts up to this size are read into memory once (Node, a path), hashed and sent from there:
 * a second read through a read stream cost 0.3-0.5 CPU s per GiB (a fresh 1 MiB buffer per
 * chunk). With 4 parts in flight that holds 4 of them (256 MiB at the default 64 MiB part);
 * larger parts are read twice.
 */
export const HOLD_MAX_BYTES = 64 * 1024 * 1024;

/** A part read into memory once: its checksum and a PUT of those bytes; release after. */
export interface HeldPart {
  sha256: string;
  put(
    url: string,
    headers: Record<string, string>,
    signal: AbortSignal,
    onBytes: (sent: number) => void,
  ): Promise<Response>;
  release(): void;
}

/** The bytes of one part of a source: hashed, then sent (as a stream in Node). */
export interface PartReader {
  size: number;
  sha256(start: number, end: number): Promise<string>;
  body(start: number, end: number): Promise<BodyInit>;
  /** Reads the range into memory to hash and send it from there (Node, a path). */
  hold?(start: number, end: number): Promise<HeldPart>;
  /** A PUT of the range without fetch (Node, a path): the file piped to the socket. */
  put?(
    url: string,
    headers: Record<string, string>,
    start: number,
    end: number,
    signal: AbortSignal,
    onBytes: (sent: number) => void,
  ): Promise<Response>;
}

const toBase64 = (bytes: Uint8Array) => {
  let text = "";
  // cast: i < bytes.length (the loop bound); this package has no checked reader of its own
  for (let i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i] as number);
  return btoa(text);
};

/** Ranges of a path (Node: streamed, hashed by node:crypto) or of a Blob (WebCrypto). */
export async function partReader(source: UploadSource): Promise<PartReader> {
  if (typeof source === "string") {
    const { open, stat } = await import("node:fs/promises");
    const { createReadStream } = await import("node:fs");
    const { Readable } = await import("node:stream");
    const { createHash } = await import("node:crypto");
    const { putBytes, putFileRange } = await import("./node-put.js");
    const { size } = await stat(source);
    // One buffer per part in flight, reused from part to part: no garbage per part read.
    const spare: Buffer[] = [];
    const stream = (start: number, end: number) =>
      createReadStream(source, { start, end: end - 1, highWaterMark: 1024 * 1024 });
    return {
      size,
      async sha256(start, end) {
        // One buffer read into again and again: no garbage per megabyte hashed.
        const hash = createHash("sha256");
        const fh = await open(source, "r");
        try {
          const buf = Buffer.allocUnsafe(Math.min(1024 * 1024, Math.max(1, end - start)));
          for (let at = start; at < end; ) {
            const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - at), at);
            if (bytesRead === 0) throw new Error(`${source} is shorter than ${end} bytes`);
            hash.update(buf.subarray(0, bytesRead));
            at += bytesRead;
          }
        } finally {
          await fh.close();
        }
        return hash.digest("base64");
      },
      body: async (start, end) =>
        end === start
          ? new Uint8Array(0)
          : // cast: Node's web ReadableStream and the DOM lib's are one class at run time, typed apart
            (Readable.toWeb(stream(start, end)) as unknown as ReadableStream<Uint8Array>),
      put: (url, headers, start, end, signal, onBytes) =>
        putFileRange(url, headers, source, start, end, { signal, onBytes }),
      async hold(start, end) {
        let buf = spare.pop();
        if (!buf || buf.length < end - start) buf = Buffer.allocUnsafe(end - start);
        const own = buf;
        const bytes = own.subarray(0, end - start);
        try {
          await readRange(open, source, bytes, start);
          const sha256 = await digestInSlices(createHash("sha256"), bytes);
          return {
            sha256,
            put: (url, headers, signal, onBytes) =>
              putBytes(url, headers, bytes, { signal, onBytes }),
            release: () => spare.push(own),
          };
        } catch (err) {
          spare.push(own);
          throw err;
        }
      },
    };
  }
  // cast: a Uint8Array is a BlobPart; TS 5.7's ArrayBufferLike generic no longer says so
  const blob = source instanceof Blob ? source : new Blob([source as BlobPart]);
  return {
    size: blob.size,
    async sha256(start, end) {
      const digest = await globalThis.crypto.subtle.digest(
        "SHA-256",
        await blob.slice(start, end).arrayBuffer(),
      );
      return toBase64(new Uint8Array(digest));
    },
    body: async (start, end) => blob.slice(start, end),
  };
}

/** Reads `into.length` bytes of `file` from `start` (the kernel may hand them over in pieces). */
async function readRange(
  open: typeof import("node:fs/promises").open,
  file: string,
  into: Buffer,
  start: number,
): Promise<void> {
  const fh = await open(file, "r");
  try {
    for (let got = 0; got < into.length; ) {
      const { bytesRead } = await fh.read(into, got, into.length - got, start + got);
      if (bytesRead === 0) throw new Error(`${file} is shorter than ${start + into.length} bytes`);
      got += bytesRead;
    }
  } finally {
    await fh.close();
  }
}

/** Hash update and digest, as node:crypto's Hash has them. */
interface Hasher {
  update(data: Uint8Array): unknown;
  digest(encoding: "base64"): string;
}

/**
 * The base64 digest of bytes in memory, 4 MiB at a time with a turn of the event loop between:
 * hashing 64 MiB in one call would stall the other parts' sockets for tens of milliseconds.
 */
async function digestInSlices(hash: Hasher, bytes: Uint8Array): Promise<string> {
  const slice = 4 * 1024 * 1024;
  for (let at = 0; at < bytes.length; at += slice) {
    hash.update(bytes.subarray(at, at + slice));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return hash.digest("base64");
}

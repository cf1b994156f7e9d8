/**
 * The parts' checksums taken on a worker thread (Node, a path): the file read a second time and
 * hashed beside the sockets instead of between their writes. On the main thread the hash's read
 * and CRC of each megabyte took turns with the writes that feed the sockets, and both ends of a
 * local upload wait on those writes (see part-reader.ts for why the reads are synchronous).
 * Loaded only in Node.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** Checksums of byte ranges of one file, one range at a time, off the main thread. */
export interface HashWorker {
  /** The base64 checksum of bytes [start, end) (part-reader.ts's PartReader.checksum). */
  checksum(algorithm: "crc32" | "sha256", start: number, end: number): Promise<string>;
  /**
   * Whether the thread has started and can take a range at once. Starting one takes ~65 ms here
   * (a new isolate, its bootstrap, the CRC module): a caller with a first part to hash does it
   * itself meanwhile rather than wait (part-reader.ts).
   */
  readonly ready: boolean;
  /** Stops the thread (idempotent); ranges still asked for are refused. */
  close(): Promise<void>;
}

/**
 * The worker's code, evaluated as a CommonJS script (no file to ship or find): CRC32 by
 * @node-rs/crc32 when its path was given, else zlib's; SHA-256 by node:crypto. The base64 of a
 * CRC is of its four bytes, big-endian (crc32.ts crc32Base64).
 */
const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { openSync, readSync } = require("node:fs");
const { createHash } = require("node:crypto");
let crc32 = null;
if (workerData.nativeCrc32) {
  try { crc32 = require(workerData.nativeCrc32).crc32; } catch {}
}
if (typeof crc32 !== "function") crc32 = require("node:zlib").crc32;
const fd = openSync(workerData.path, "r");
const buf = Buffer.allocUnsafe(1024 * 1024);
parentPort.on("message", ({ id, algorithm, start, end }) => {
  try {
    const hash = algorithm === "sha256" ? createHash("sha256") : null;
    let crc = 0;
    for (let at = start; at < end; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, end - at), at);
      if (n === 0) throw new Error(workerData.path + " is shorter than " + end + " bytes");
      const view = buf.subarray(0, n);
      if (hash) hash.update(view);
      else crc = crc32(view, crc);
      at += n;
    }
    let digest;
    if (hash) digest = hash.digest("base64");
    else {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(crc >>> 0);
      digest = b.toString("base64");
    }
    parentPort.postMessage({ id, digest });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
parentPort.postMessage({ ready: true });
`;

/** Where @node-rs/crc32 resolves from this package, if it installed. */
function nativeCrc32Path(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("@node-rs/crc32");
  } catch {
    return undefined;
  }
}

/**
 * A hashing thread for `path`, or null where none can start (zlib without crc32 and no native
 * CRC32, or threads refused): the caller hashes on its own thread then.
 */
export function startHashWorker(path: string, zlibHasCrc32: boolean): HashWorker | null {
  const nativeCrc32 = nativeCrc32Path();
  if (!nativeCrc32 && !zlibHasCrc32) return null;
  let worker: Worker;
  try {
    worker = new Worker(SOURCE, { eval: true, workerData: { path, nativeCrc32 } });
  } catch {
    return null;
  }
  // Held (ref) only while a range is being hashed: a caller waiting on nothing else (the CLI
  // checking the parts that arrived before any socket is open) must not see its process exit
  // under it, and a caller that forgets to close it must not be kept alive by it.
  worker.unref();
  type Waiter = { resolve: (digest: string) => void; reject: (err: Error) => void };
  const waiting = new Map<number, Waiter>();
  let nextId = 1;
  let ended: Error | null = null;
  const endAll = (err: Error) => {
    ended ??= err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
    worker.unref();
  };
  let ready = false;
  worker.on("message", (msg: { ready?: true; id: number; digest?: string; error?: string }) => {
    if (msg.ready) {
      ready = true;
      return;
    }
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (waiting.size === 0) worker.unref();
    if (msg.digest !== undefined) w.resolve(msg.digest);
    else w.reject(new Error(msg.error ?? "the hashing thread failed"));
  });
  worker.on("error", (err) => endAll(err));
  worker.on("exit", () => endAll(new Error("the hashing thread stopped")));
  return {
    get ready() {
      return ready && !ended;
    },
    checksum(algorithm, start, end) {
      if (ended) return Promise.reject(ended);
      const id = nextId++;
      return new Promise<string>((resolve, reject) => {
        if (waiting.size === 0) worker.ref();
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, algorithm, start, end });
      });
    },
    async close() {
      endAll(new Error("the upload ended"));
      await worker.terminate();
    },
  };
}

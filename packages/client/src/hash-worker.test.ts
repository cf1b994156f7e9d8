/**
 * The hashing thread answers what hashing on the main thread answers (CRC32 and SHA-256, any
 * range), refuses a range past the file's end, and refuses everything once closed.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crc32Base64, crc32Js } from "./crc32.js";
import { startHashWorker } from "./hash-worker.js";

let dir: string;
let file: string;
const bytes = randomBytes(3 * 1024 * 1024 + 4321);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-hash-"));
  file = join(dir, "tape.bin");
  await writeFile(file, bytes);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the hashing thread", () => {
  it("hashes ranges as the main thread does, one after another", async () => {
    const worker = startHashWorker(file, true);
    expect(worker).not.toBeNull();
    if (!worker) return;
    try {
      const ranges = [
        [0, bytes.length],
        [1024 * 1024, 2 * 1024 * 1024 + 17],
        [bytes.length - 1, bytes.length],
      ] as const;
      const got = await Promise.all(
        ranges.flatMap(([s, e]) => [
          worker.checksum("crc32", s, e),
          worker.checksum("sha256", s, e),
        ]),
      );
      const want = ranges.flatMap(([s, e]) => [
        crc32Base64(crc32Js(bytes.subarray(s, e))),
        createHash("sha256").update(bytes.subarray(s, e)).digest("base64"),
      ]);
      expect(got).toEqual(want);
    } finally {
      await worker.close();
    }
  });

  it("says it is ready only once its thread has started, and not after it was closed", async () => {
    const worker = startHashWorker(file, true);
    if (!worker) throw new Error("no hashing thread");
    // A thread cannot have started before the call that spawned it returned.
    expect(worker.ready).toBe(false);
    const deadline = Date.now() + 10_000;
    while (!worker.ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(worker.ready).toBe(true);
    await worker.close();
    expect(worker.ready).toBe(false);
  });

  it("refuses a range past the end of the file, and any range once closed", async () => {
    const worker = startHashWorker(file, true);
    if (!worker) throw new Error("no hashing thread");
    await expect(worker.checksum("crc32", 0, bytes.length + 1)).rejects.toThrow(/shorter than/);
    await worker.close();
    await expect(worker.checksum("crc32", 0, 10)).rejects.toThrow(/ended/);
  });

  it("says so when the file cannot be read", async () => {
    const worker = startHashWorker(join(dir, "missing.bin"), true);
    if (!worker) throw new Error("no hashing thread");
    await expect(worker.checksum("crc32", 0, 10)).rejects.toThrow(/ENOENT|no such file/);
    // Never ready: part-reader.ts then hashes on its own thread instead of failing the upload.
    expect(worker.ready).toBe(false);
    await worker.close();
  });
});

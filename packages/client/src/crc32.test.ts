import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32Base64, crc32Js } from "./crc32.js";
import { partReader } from "./part-reader.js";

describe("CRC32 for parts", () => {
  it("is the IEEE CRC32 of the check string, as S3 writes it", () => {
    const check = new TextEncoder().encode("123456789");
    expect(crc32Js(check)).toBe(0xcbf43926);
    // S3's x-amz-checksum-crc32: the 4 bytes big-endian, base64.
    expect(crc32Base64(0xcbf43926)).toBe(Buffer.from([0xcb, 0xf4, 0x39, 0x26]).toString("base64"));
    expect(crc32Js(new Uint8Array(0))).toBe(0);
  });

  it("agrees with zlib at every length and when fed in pieces", () => {
    for (const n of [1, 7, 8, 9, 15, 16, 17, 1000, 65_537]) {
      const bytes = randomBytes(n);
      expect(crc32Js(bytes)).toBe(zlib.crc32(bytes));
      const cut = Math.floor(n / 3);
      expect(crc32Js(bytes.subarray(cut), crc32Js(bytes.subarray(0, cut)))).toBe(zlib.crc32(bytes));
    }
  });

  it("reads the same checksum of a range from a path (zlib) and from a Blob (the JS one)", async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 5);
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "kinora-crc-"));
    try {
      const file = join(dir, "f.bin");
      await writeFile(file, bytes);
      const fromPath = await partReader(file);
      const fromBlob = await partReader(new Blob([bytes]));
      for (const algorithm of ["crc32", "sha256"] as const) {
        const [start, end] = [1024 * 1024 - 3, 3 * 1024 * 1024 + 1];
        const a = await fromPath.checksum(algorithm, start, end);
        expect(await fromBlob.checksum(algorithm, start, end)).toBe(a);
      }
      expect(await fromPath.checksum("crc32", 0, bytes.length)).toBe(
        crc32Base64(zlib.crc32(bytes)),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

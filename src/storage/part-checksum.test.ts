import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32Base64, createPartHasher, nativeCrc32, partChecksum } from "./part-checksum.js";

describe("part checksums", () => {
  it("runs CRC32 on @node-rs/crc32's native code where it installed (it does on Linux x64)", () => {
    if (process.platform === "linux" && process.arch === "x64") expect(nativeCrc32).toBe(true);
  });

  it("CRC32 gives the standard check value and zlib's value, whatever the chunks", () => {
    // The CRC-32/ISO-HDLC check value of "123456789".
    expect(partChecksum("crc32", Buffer.from("123456789"))).toBe(crc32Base64(0xcbf43926));
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const whole = crc32Base64(zlib.crc32(bytes));
    const hasher = createPartHasher("crc32");
    // Views that do not start at their buffer's first byte, as sockets hand them over.
    for (let at = 0; at < bytes.length; ) {
      const n = Math.min(bytes.length - at, 1 + Math.floor(Math.random() * 200_000));
      hasher.update(new Uint8Array(bytes.buffer, bytes.byteOffset + at, n));
      at += n;
    }
    expect(hasher.digest()).toBe(whole);
    expect(partChecksum("crc32", new Uint8Array(0))).toBe(crc32Base64(0));
  });

  it("SHA-256 and MD5 answer base64 digests", () => {
    expect(partChecksum("sha256", Buffer.from("abc"))).toBe(
      "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=",
    );
    expect(partChecksum("md5", Buffer.from("abc"))).toBe("kAFQmDzST7DWlj99KOF/cg==");
  });
});

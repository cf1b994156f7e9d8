/**
 * Computing a part's checksum as its bytes stream past, for the store that verifies it (the
 * local store) and for tests: CRC32 by zlib (the 4 bytes big-endian, as S3's
 * x-amz-checksum-crc32 has them), SHA-256 and MD5 by node:crypto. Each answers base64.
 */
import { createHash } from "node:crypto";
import zlib from "node:zlib";
import type { ChecksumAlgorithm } from "../domain/uploads.js";

/** Fed the bytes in order; `digest` once at the end, in base64. */
export interface PartHasher {
  update(chunk: Uint8Array): void;
  digest(): string;
}

/** A hasher for `algorithm`. */
export function createPartHasher(algorithm: ChecksumAlgorithm): PartHasher {
  if (algorithm !== "crc32") {
    const hash = createHash(algorithm);
    return { update: (chunk) => void hash.update(chunk), digest: () => hash.digest("base64") };
  }
  let crc = 0;
  return {
    update: (chunk) => {
      crc = zlib.crc32(chunk, crc);
    },
    digest: () => crc32Base64(crc),
  };
}

/** A CRC32 value as S3 writes it: the 4 bytes big-endian, in base64. */
export function crc32Base64(crc: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc >>> 0);
  return bytes.toString("base64");
}

/** The checksum of bytes in memory (tests and small files). */
export function partChecksum(algorithm: ChecksumAlgorithm, bytes: Uint8Array): string {
  const hasher = createPartHasher(algorithm);
  hasher.update(bytes);
  return hasher.digest();
}

/**
 * Computing a part's checksum as its bytes stream past, for the store that verifies it (the
 * local store) and for tests: CRC32 (the 4 bytes big-endian, as S3's x-amz-checksum-crc32 has
 * them), SHA-256 and MD5 by node:crypto. Each answers base64.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import zlib from "node:zlib";
import type { ChecksumAlgorithm } from "../domain/uploads.js";

type Crc32Step = (chunk: Uint8Array, crc: number) => number;

/**
 * @node-rs/crc32 (carry-less multiply) where its prebuilt binary installed: 3.4 GB/s on 64 KiB
 * socket chunks here against zlib.crc32's 1.0 (1 MiB: 5.4 against 1.3), which cost the API node
 * ~1 CPU s per 2 GiB received in parts. Its binary is an optional dependency, one per platform:
 * where none fits, zlib's gives the same values.
 */
function loadCrc32(): { step: Crc32Step; native: boolean } {
  try {
    const require = createRequire(import.meta.url);
    // cast: the package's declared export, checked with typeof below
    const mod = require("@node-rs/crc32") as { crc32?: unknown };
    if (typeof mod.crc32 === "function") {
      // cast: @node-rs/crc32's crc32(input: Buffer | string, initialState?: number): number
      const native = mod.crc32 as (input: Buffer, initial?: number) => number;
      return {
        step: (chunk, crc) =>
          // Sockets and file reads hand over Buffers already: only other views are wrapped.
          native(
            Buffer.isBuffer(chunk)
              ? chunk
              : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
            crc,
          ),
        native: true,
      };
    }
  } catch {
    // No binary for this platform: zlib's below.
  }
  return { step: (chunk, crc) => zlib.crc32(chunk, crc), native: false };
}

const crc32 = loadCrc32();

/** Whether CRC32 runs on @node-rs/crc32's native code here (else zlib's). */
export const nativeCrc32 = crc32.native;

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
      crc = crc32.step(chunk, crc);
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

/**
 * Uploads in parts, as pure rules: how a declared size is cut into parts, what each part's size
 * is, and which checksums a part may carry. S3's multipart limits are the common ground: every
 * store (S3 and the embedded local one) takes the same plan, so a caller's code is the same.
 */
import { at } from "./checked-index.js";

/** S3's multipart limits: parts numbered 1–10,000, each but the last 5 MiB–5 GiB. */
export const S3_PART_LIMITS = {
  maxParts: 10_000,
  minPartBytes: 5 * 1024 ** 2,
  maxPartBytes: 5 * 1024 ** 3,
} as const;

/** How a file is sent in parts: every part but the last is `partSizeBytes`. */
export interface PartPlan {
  sizeBytes: number;
  partSizeBytes: number;
  partCount: number;
}

const MIB = 1024 ** 2;

/**
 * The plan for `sizeBytes` in parts of `partBytes` (the operator's UPLOAD_PART_BYTES), grown to
 * a whole number of MiB when the file would need more than 10,000 parts. A file of up to one
 * part is one part.
 */
export function planParts(sizeBytes: number, partBytes: number): PartPlan {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 1) {
    throw new RangeError(`sizeBytes must be a positive integer, got ${sizeBytes}`);
  }
  if (!Number.isSafeInteger(partBytes) || partBytes < 1) {
    throw new RangeError(`partBytes must be a positive integer, got ${partBytes}`);
  }
  let partSizeBytes = partBytes;
  if (Math.ceil(sizeBytes / partSizeBytes) > S3_PART_LIMITS.maxParts) {
    partSizeBytes = Math.ceil(sizeBytes / S3_PART_LIMITS.maxParts / MIB) * MIB;
  }
  if (partSizeBytes > S3_PART_LIMITS.maxPartBytes) {
    throw new RangeError(`${sizeBytes} bytes do not fit 10,000 parts of at most 5 GiB`);
  }
  return { sizeBytes, partSizeBytes, partCount: Math.ceil(sizeBytes / partSizeBytes) };
}

/** The byte size of part `partNumber` (1-based) of the plan; every part but the last is full. */
export function partSize(plan: PartPlan, partNumber: number): number {
  if (!isPartNumber(plan, partNumber)) {
    throw new RangeError(`part ${partNumber} is outside 1–${plan.partCount}`);
  }
  return partNumber < plan.partCount
    ? plan.partSizeBytes
    : plan.sizeBytes - (plan.partCount - 1) * plan.partSizeBytes;
}

/** Where part `partNumber` starts in the whole file. */
export function partOffset(plan: PartPlan, partNumber: number): number {
  return (partNumber - 1) * plan.partSizeBytes;
}

/** Whether `n` is one of the plan's part numbers. */
export function isPartNumber(plan: PartPlan, n: number): boolean {
  return Number.isSafeInteger(n) && n >= 1 && n <= plan.partCount;
}

/**
 * The checksum a part carries, each one S3 verifies itself: CRC32 (x-amz-checksum-crc32, the
 * 4 bytes big-endian), SHA-256 (x-amz-checksum-sha256) or MD5 (Content-MD5). CRC32 is the
 * default for a caller's parts: it catches what a checksum is there for (bytes damaged or cut
 * on the way, a part of another file) at a fraction of SHA-256's CPU on both ends (measured:
 * 0.25 CPU s per GiB against 0.67 here, for each of client and store); the links are signed, so
 * nothing rests on the checksum being cryptographic.
 */
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** Every checksum a part may carry, in the order a digest's length is tried. */
export const CHECKSUM_ALGORITHMS = ["crc32", "sha256", "md5"] as const;

/** The algorithms a plan may name for a caller's parts (UPLOAD_PART_CHECKSUM). */
export const PART_CHECKSUMS = ["crc32", "sha256"] as const;
/** A plan's algorithm for a caller's parts. */
export type PartChecksum = (typeof PART_CHECKSUMS)[number];

/**
 * How a caller computes a part's checksum for each algorithm a plan may name, in one sentence:
 * every surface that tells a caller how to send parts (the plan's steps, the create answer's
 * `next`, the MCP text) says it in these words.
 */
export const PART_CHECKSUM_HOW =
  "crc32: the base64 of the 4 bytes of its CRC32, big-endian, as zlib and S3 compute it; sha256: the base64 SHA-256";

/** Standard base64 with padding of a 4-byte, a 32-byte and a 16-byte digest. */
const BASE64_DIGEST: Record<ChecksumAlgorithm, RegExp> = {
  crc32: /^[A-Za-z0-9+/]{5}[AQgw]==$/,
  sha256: /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/,
  md5: /^[A-Za-z0-9+/]{21}[AQgw]==$/,
};

/** How each checksum is named to people: in errors and field descriptions. */
export const CHECKSUM_NAMES: Record<ChecksumAlgorithm, string> = {
  crc32: "base64 CRC32 (4 bytes, big-endian: 8 characters)",
  sha256: "base64 SHA-256 (44 characters)",
  md5: "base64 MD5 (24 characters)",
};

/**
 * Whether `value` is a base64 digest of the algorithm's length: what S3 takes in
 * x-amz-checksum-crc32, x-amz-checksum-sha256 and Content-MD5 (standard base64 with padding).
 */
export function isBase64Digest(algorithm: ChecksumAlgorithm, value: string): boolean {
  return BASE64_DIGEST[algorithm].test(value);
}

/** The header a part's checksum travels in, as S3 names it. */
export function checksumHeader(algorithm: ChecksumAlgorithm): string {
  if (algorithm === "md5") return "Content-MD5";
  return `x-amz-checksum-${algorithm}`;
}

/** Which algorithm a base64 digest is, by its length (4, 16 or 32 bytes); null for none. */
export function checksumAlgorithmOf(value: string): ChecksumAlgorithm | null {
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    if (isBase64Digest(algorithm, value)) return algorithm;
  }
  return null;
}

/** Whether `value` names an algorithm parts may carry. */
export function isChecksumAlgorithm(value: unknown): value is ChecksumAlgorithm {
  return CHECKSUM_ALGORITHMS.some((algorithm) => algorithm === value);
}

/** Which parts of the plan are not among `arrived`, in order. */
export function missingParts(plan: PartPlan, arrived: Iterable<number>): number[] {
  const have = new Set(arrived);
  const missing: number[] = [];
  for (let n = 1; n <= plan.partCount; n++) if (!have.has(n)) missing.push(n);
  return missing;
}

/**
 * "3, 5, 7–12": part numbers (ascending) as ranges, the first `maxRanges` of them at most and
 * then how many parts more. A whole upload missing is "1–9347", not 9,347 numbers.
 */
export function describeParts(numbers: readonly number[], maxRanges = 20): string {
  const ranges: string[] = [];
  let i = 0;
  for (; i < numbers.length && ranges.length < maxRanges; ) {
    let j = i;
    while (j + 1 < numbers.length && at(numbers, j + 1) === at(numbers, j) + 1) j++;
    ranges.push(i === j ? `${numbers[i]}` : `${numbers[i]}–${numbers[j]}`);
    i = j + 1;
  }
  const rest = numbers.length - i;
  const more = rest > 0 ? ` and ${rest} more part${rest === 1 ? "" : "s"}` : "";
  return `${ranges.join(", ")}${more}`;
}

/**
 * Image type from magic bytes. The bytes decide, never a server's Content-Type or a file
 * name: both are caller-controlled and CDNs often send application/octet-stream anyway.
 */
export type ImageContentType = "image/jpeg" | "image/png" | "image/webp";

export const IMAGE_CONTENT_TYPES: readonly ImageContentType[] = [
  "image/jpeg",
  "image/png",
  "image/webp",
];

/** Bytes needed before `sniffImageType` can decide. */
export const SNIFF_BYTES = 12;

/** Returns the image type the bytes start with, or null (also when fewer than 12 bytes). */
export function sniffImageType(head: Uint8Array): ImageContentType | null {
  if (head.length < SNIFF_BYTES) return null;
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head[0] === 0x89 && head[1] === 0x50 && head[2] === 0x4e && head[3] === 0x47) {
    return "image/png";
  }
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return null;
}

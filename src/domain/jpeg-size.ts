/**
 * A JPEG's pixel size from its frame header (SOF0–SOF15 but DHT, JPG and DAC), read from the
 * bytes without decoding: the size of a done restore's full-size frames (GET
 * /cloud/jobs/{id}/pictures), which the console's comparison page says and sizes its pictures by.
 */

/** Width and height of the JPEG in `bytes`, or null when it is not one (or has no frame). */
export function jpegSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  // Big-endian reads that throw a RangeError past the end (the loop keeps 9 bytes in hand).
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = view.getUint8(at + 1);
    // Fill bytes and markers without a length (TEM, RSTn) carry no segment.
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = view.getUint16(at + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isFrame) {
      const height = view.getUint16(at + 5);
      const width = view.getUint16(at + 7);
      return width > 0 && height > 0 ? { width, height } : null;
    }
    if (marker === 0xda || length < 2) return null; // the scan began before any frame header
    at += 2 + length;
  }
  return null;
}

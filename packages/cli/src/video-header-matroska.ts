/**
 * Matroska and WebM (EBML) headers: DocType from the EBML header, then `Segment/Info`
 * TimestampScale and Duration, and PixelWidth/PixelHeight of the first video TrackEntry, from
 * the first 4 MB only; elements of unknown size (live streams) are handled.
 */
import type { FileHandle } from "node:fs/promises";
import { type FrameSize, frameSize, readAt, type VideoHeader } from "./video-header-io.js";

/** The Matroska element IDs read here (from the Matroska specification). */
export const EBML = {
  header: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  info: 0x1549a966,
  timestampScale: 0x2ad7b1,
  duration: 0x4489,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackType: 0x83,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba,
} as const;

/** How far into the file Info and Tracks are looked for; muxers put them in the first few KB. */
const MATROSKA_SCAN_LIMIT = 4 * 1024 * 1024;
/** The most of an Info or Tracks element read (Tracks can hold codec private data). */
const MATROSKA_MASTER_READ_LIMIT = 256 * 1024;
const TRACK_TYPE_VIDEO = 1;

interface Element {
  id: number;
  dataStart: number;
  /** undefined: unknown size (the element runs until something that cannot be its child). */
  size: number | undefined;
}

/** A variable-length integer at `offset`: an element ID keeps its length marker, a size drops it. */
function readVint(buf: Buffer, offset: number, isId: boolean) {
  const first = buf.readUInt8(offset);
  const length = Math.clz32(first) - 23; // 1..8 for a non-zero byte
  if (length > 8 || (isId && length > 4) || offset + length > buf.length) return undefined;
  const valueMask = 0xff >> length;
  let value = isId ? first : first & valueMask;
  let allOnes = (first & valueMask) === valueMask;
  for (let i = 1; i < length; i++) {
    const byte = buf.readUInt8(offset + i);
    value = value * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  return { value, length, unknown: !isId && allOnes };
}

/** The element header at `offset` in `buf` (offsets relative to `buf`). */
function parseElementHeader(buf: Buffer, offset: number): Element | undefined {
  if (offset >= buf.length) return undefined;
  const id = readVint(buf, offset, true);
  if (!id || offset + id.length >= buf.length) return undefined;
  const size = readVint(buf, offset + id.length, false);
  if (!size) return undefined;
  return {
    id: id.value,
    dataStart: offset + id.length + size.length,
    size: size.unknown ? undefined : size.value,
  };
}

/**
 * The children of a master element whose data is `buf[start, end)`. An unknown-size master ends
 * where a 4-byte (top-level) ID appears, since Info, Tracks and their children never use one.
 */
function childElements(buf: Buffer, start: number, end: number, unknownSize = false) {
  const children: Array<{ id: number; data: Buffer }> = [];
  let offset = start;
  while (offset < end) {
    const element = parseElementHeader(buf, offset);
    if (!element || element.size === undefined) break;
    if (unknownSize && element.id > 0xffffff) break;
    const elementEnd = element.dataStart + element.size;
    if (elementEnd > end) break;
    children.push({ id: element.id, data: buf.subarray(element.dataStart, elementEnd) });
    offset = elementEnd;
  }
  return { children, end: offset };
}

function readUnsigned(data: Buffer): number {
  let value = 0;
  for (const byte of data) value = value * 256 + byte;
  return value;
}

export async function readMatroska(
  file: FileHandle,
  fileSize: number,
): Promise<VideoHeader | null> {
  const ebmlHead = await readAt(file, 0, 4096);
  const ebml = parseElementHeader(ebmlHead, 0);
  if (!ebml || ebml.size === undefined) return null;
  const ebmlEnd = ebml.dataStart + ebml.size;
  const docType = childElements(ebmlHead, ebml.dataStart, ebmlEnd)
    .children.find((child) => child.id === EBML.docType)
    ?.data.toString("latin1")
    .replace(/\0+$/, "");
  if (docType !== "matroska" && docType !== "webm") return null;

  const segment = parseElementHeader(await readAt(file, ebmlEnd, 12), 0);
  if (!segment || segment.id !== EBML.segment) return null;
  const segmentStart = ebmlEnd + segment.dataStart;
  const segmentEnd = Math.min(fileSize, segmentStart + (segment.size ?? fileSize));

  let info: { durationSec: number } | null | undefined;
  let frame: FrameSize | undefined;
  let video: boolean | undefined;
  let offset = segmentStart;
  const scanEnd = Math.min(segmentEnd, MATROSKA_SCAN_LIMIT);
  while (offset < scanEnd && (info === undefined || frame === undefined)) {
    const element = parseElementHeader(await readAt(file, offset, 12), 0);
    if (!element) break;
    const dataStart = offset + element.dataStart;
    if (element.id === EBML.info || element.id === EBML.tracks) {
      const limit = Math.min(MATROSKA_MASTER_READ_LIMIT, segmentEnd - dataStart);
      const data = await readAt(file, dataStart, Math.min(element.size ?? limit, limit));
      const { children, end } = childElements(data, 0, data.length, element.size === undefined);
      if (element.id === EBML.info) info = parseInfo(children);
      else {
        const size = firstVideoTrackSize(children);
        video = size !== undefined;
        frame = size ?? {};
      }
      offset = dataStart + (element.size ?? end);
    } else {
      if (element.size === undefined) break; // e.g. a live stream's Cluster: cannot be skipped
      offset = dataStart + element.size;
    }
  }
  if (!info) return null;
  return {
    durationSec: info.durationSec,
    ...frame,
    container: docType,
    ...(video === undefined ? {} : { video }),
  };
}

function parseInfo(children: Array<{ id: number; data: Buffer }>): { durationSec: number } | null {
  let timestampScaleNs = 1_000_000;
  let duration: number | undefined;
  for (const { id, data } of children) {
    if (id === EBML.timestampScale && data.length > 0) timestampScaleNs = readUnsigned(data);
    if (id === EBML.duration && data.length === 4) duration = data.readFloatBE(0);
    if (id === EBML.duration && data.length === 8) duration = data.readDoubleBE(0);
  }
  const durationSec = ((duration ?? 0) * timestampScaleNs) / 1e9;
  return Number.isFinite(durationSec) && durationSec > 0 ? { durationSec } : null;
}

function firstVideoTrackSize(tracks: Array<{ id: number; data: Buffer }>): FrameSize | undefined {
  for (const track of tracks) {
    if (track.id !== EBML.trackEntry) continue;
    const fields = childElements(track.data, 0, track.data.length).children;
    const type = fields.find((field) => field.id === EBML.trackType);
    if (!type || readUnsigned(type.data) !== TRACK_TYPE_VIDEO) continue;
    const video = fields.find((field) => field.id === EBML.video);
    if (!video) return {};
    const settings = childElements(video.data, 0, video.data.length).children;
    const pixels = (id: number) => {
      const field = settings.find((setting) => setting.id === id);
      return field ? readUnsigned(field.data) : 0;
    };
    return frameSize(pixels(EBML.pixelWidth), pixels(EBML.pixelHeight));
  }
  return undefined;
}

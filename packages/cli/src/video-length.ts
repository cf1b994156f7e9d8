/**
 * A video file's length (and, where cheap, its frame size) read straight from its container header.
 *
 * Why: the CLI quotes a restoration's price before it uploads anything, and the price is per
 * second of video. Asking ffmpeg/ffprobe would mean shipping the ffmpeg npm packages (~141 MB)
 * with a terminal client, so this reads the few header bytes that hold the length instead. It
 * opens the file and reads small slices at known offsets — never the whole file, which can be
 * several GB — using only node:fs/promises.
 *
 * Supported:
 * - MP4 and QuickTime MOV (ISO BMFF): `moov/mvhd` timescale + duration (versions 0 and 1),
 *   wherever `moov` sits (before or after a 64-bit `mdat`); the frame size comes from the `tkhd`
 *   of the first track whose `mdia/hdlr` handler is `vide`. A fragmented file whose `mvhd` has
 *   no duration uses `mvex/mehd` when present; without it the length is unknown (null).
 * - Matroska and WebM (EBML): DocType from the EBML header, then `Segment/Info` TimestampScale
 *   and Duration, and PixelWidth/PixelHeight of the first video TrackEntry. Only the first 4 MB
 *   are scanned; elements of unknown size (live streams) are handled.
 * - AVI (RIFF `AVI `): `avih` microseconds per frame × total frames, plus its width/height; an
 *   OpenDML file's `odml/dmlh` total frames wins, since `avih` counts only the first RIFF chunk.
 */

import { type FileHandle, open } from "node:fs/promises";
import {
  type FrameSize,
  frameSize,
  readAt,
  type VideoContainer,
  type VideoHeader,
} from "./video-header-io.js";
import { EBML, readMatroska } from "./video-header-matroska.js";

export type { VideoContainer, VideoHeader };

/**
 * Reads the length (and frame size, where cheap) of the video at `path` from its container
 * header. Resolves to null when the format is not one of the supported containers, or the header
 * is damaged, cut short or states no length; rejects only when the file cannot be opened or read.
 */
export async function readVideoHeader(path: string): Promise<VideoHeader | null> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    const head = await readAt(file, 0, 12);
    if (head.length < 8) return null;
    if (head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "AVI ") {
      return await readAvi(file, size);
    }
    if (head.readUInt32BE(0) === EBML.header) return await readMatroska(file, size);
    const firstBoxType = head.toString("latin1", 4, 8);
    if (ISO_TOP_LEVEL_TYPES.has(firstBoxType)) return await readIsoBmff(file, size);
    return null;
  } catch (error) {
    // A header that lies about its sizes makes a Buffer read run past the slice it has; Buffer
    // reports that as a RangeError. That is a file we cannot read a length from, not a failure.
    if (error instanceof RangeError) return null;
    throw error;
  } finally {
    await file.close();
  }
}

// ---------------------------------------------------------------- MP4 / MOV (ISO BMFF)

/** Box types a MP4/MOV file can start with (old QuickTime files have no `ftyp`). */
const ISO_TOP_LEVEL_TYPES = new Set(["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot"]);

interface Box {
  type: string;
  bodyStart: number;
  end: number;
}

/** The boxes between `start` and `end`; stops at the first header that is cut short or overruns. */
async function* isoBoxes(file: FileHandle, start: number, end: number): AsyncGenerator<Box> {
  let offset = start;
  while (offset + 8 <= end) {
    const header = await readAt(file, offset, 16);
    if (header.length < 8) return;
    let size = header.readUInt32BE(0);
    let bodyStart = offset + 8;
    if (size === 1) {
      if (header.length < 16) return;
      size = Number(header.readBigUInt64BE(8));
      bodyStart += 8;
    } else if (size === 0) {
      size = end - offset; // "extends to the end of the file"
    }
    const boxEnd = offset + size;
    if (boxEnd < bodyStart || boxEnd > end) return;
    yield { type: header.toString("latin1", 4, 8), bodyStart, end: boxEnd };
    offset = boxEnd;
  }
}

async function findBox(file: FileHandle, parent: Box, type: string): Promise<Box | undefined> {
  for await (const box of isoBoxes(file, parent.bodyStart, parent.end)) {
    if (box.type === type) return box;
  }
  return undefined;
}

/** The first `max` bytes of a box's body. */
function readBody(file: FileHandle, box: Box, max: number): Promise<Buffer> {
  return readAt(file, box.bodyStart, Math.min(max, box.end - box.bodyStart));
}

async function readIsoBmff(file: FileHandle, fileSize: number): Promise<VideoHeader | null> {
  let majorBrand: string | undefined;
  let moov: Box | undefined;
  for await (const box of isoBoxes(file, 0, fileSize)) {
    if (box.type === "ftyp") majorBrand = (await readBody(file, box, 4)).toString("latin1");
    if (box.type === "moov") {
      moov = box;
      break;
    }
  }
  if (!moov) return null;

  let timescale = 0;
  let duration = 0;
  let fragmentDuration = 0;
  let frame: FrameSize | undefined;
  let tracks = 0;
  for await (const box of isoBoxes(file, moov.bodyStart, moov.end)) {
    if (box.type === "mvhd") {
      const mvhd = await readBody(file, box, 32);
      const v1 = mvhd.readUInt8(0) === 1;
      timescale = mvhd.readUInt32BE(v1 ? 20 : 12);
      const stated = v1 ? mvhd.readBigUInt64BE(24) : BigInt(mvhd.readUInt32BE(16));
      // All ones means "unknown" (a live or still-being-written file).
      duration = stated === (v1 ? 0xffffffffffffffffn : 0xffffffffn) ? 0 : Number(stated);
    } else if (box.type === "trak") {
      tracks++;
      frame ??= await videoTrackSize(file, box);
    } else if (box.type === "mvex") {
      const mehd = await findBox(file, box, "mehd");
      if (mehd) {
        const body = await readBody(file, mehd, 12);
        fragmentDuration =
          body.readUInt8(0) === 1 ? Number(body.readBigUInt64BE(4)) : body.readUInt32BE(4);
      }
    }
  }
  const length = duration || fragmentDuration;
  if (!timescale || !length) return null;
  return {
    durationSec: length / timescale,
    ...frame,
    container: majorBrand === undefined || majorBrand === "qt  " ? "mov" : "mp4",
    // Every track of `moov` was looked at: tracks but no `vide` handler means no picture.
    ...(tracks > 0 ? { video: frame !== undefined } : {}),
  };
}

/** A track's `tkhd` width/height (16.16 fixed point), if its handler is `vide`; else undefined. */
async function videoTrackSize(file: FileHandle, trak: Box): Promise<FrameSize | undefined> {
  const mdia = await findBox(file, trak, "mdia");
  const hdlr = mdia && (await findBox(file, mdia, "hdlr"));
  if (!hdlr || (await readBody(file, hdlr, 12)).toString("latin1", 8, 12) !== "vide") {
    return undefined;
  }
  const tkhd = await findBox(file, trak, "tkhd");
  if (!tkhd) return {};
  const body = await readBody(file, tkhd, 96);
  // version 0: 20 bytes of times/ids/duration, version 1: 32; then 52 bytes of layer/matrix.
  const sizeAt = (body.readUInt8(0) === 1 ? 32 : 20) + 4 + 52;
  if (body.length < sizeAt + 8) return {}; // a short tkhd costs the frame size, not the length
  return frameSize(
    Math.round(body.readUInt32BE(sizeAt) / 65536),
    Math.round(body.readUInt32BE(sizeAt + 4) / 65536),
  );
}

// ---------------------------------------------------------------- AVI (RIFF)

interface Chunk {
  id: string;
  /** The LIST type (`hdrl`, `odml`, …) for a LIST chunk. */
  listType?: string;
  bodyStart: number;
  end: number;
}

/** The RIFF chunks between `start` and `end`; bodies are padded to an even length. */
async function* riffChunks(file: FileHandle, start: number, end: number): AsyncGenerator<Chunk> {
  let offset = start;
  while (offset + 8 <= end) {
    const header = await readAt(file, offset, 12);
    if (header.length < 8) return;
    const id = header.toString("latin1", 0, 4);
    const size = header.readUInt32LE(4);
    const chunkEnd = offset + 8 + size;
    if (chunkEnd > end) return;
    const isList = id === "LIST" && size >= 4 && header.length >= 12;
    yield isList
      ? { id, listType: header.toString("latin1", 8, 12), bodyStart: offset + 12, end: chunkEnd }
      : { id, bodyStart: offset + 8, end: chunkEnd };
    offset = chunkEnd + (size % 2);
  }
}

async function readAvi(file: FileHandle, fileSize: number): Promise<VideoHeader | null> {
  const riffEnd = Math.min(fileSize, 8 + (await readAt(file, 4, 4)).readUInt32LE(0));
  let hdrl: Chunk | undefined;
  for await (const chunk of riffChunks(file, 12, riffEnd)) {
    if (chunk.listType === "hdrl") {
      hdrl = chunk;
      break;
    }
    if (chunk.listType === "movi") break; // the header list always comes before the frames
  }
  if (!hdrl) return null;

  let microSecPerFrame = 0;
  let totalFrames = 0;
  let openDmlTotalFrames = 0;
  let frame: FrameSize = {};
  for await (const chunk of riffChunks(file, hdrl.bodyStart, hdrl.end)) {
    if (chunk.id === "avih") {
      const avih = await readAt(file, chunk.bodyStart, Math.min(40, chunk.end - chunk.bodyStart));
      microSecPerFrame = avih.readUInt32LE(0);
      totalFrames = avih.readUInt32LE(16);
      frame = frameSize(avih.readUInt32LE(32), avih.readUInt32LE(36));
    } else if (chunk.listType === "odml") {
      for await (const odml of riffChunks(file, chunk.bodyStart, chunk.end)) {
        if (odml.id === "dmlh" && odml.end - odml.bodyStart >= 4) {
          openDmlTotalFrames = (await readAt(file, odml.bodyStart, 4)).readUInt32LE(0);
        }
      }
    }
  }
  const frames = openDmlTotalFrames || totalFrames;
  if (!microSecPerFrame || !frames) return null;
  return { durationSec: (microSecPerFrame * frames) / 1e6, ...frame, container: "avi" };
}

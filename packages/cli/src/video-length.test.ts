import { execFile } from "node:child_process";
import { mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { EBML } from "./video-header-matroska.js";
import { readVideoHeader } from "./video-length.js";

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-video-length-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tool(name: string): Promise<string | undefined> {
  try {
    return (await run(name, ["-hide_banner", "-encoders"])).stdout;
  } catch {
    return undefined;
  }
}
const encoders = await tool("ffmpeg");
const hasFfmpeg = encoders !== undefined && (await tool("ffprobe")) !== undefined;
const hasEncoder = (name: string) => encoders?.includes(` ${name} `) ?? false;
const webmSkipped = hasEncoder("libvpx") ? "" : " — skipped: this ffmpeg has no libvpx encoder";

/** Encodes a 320×240 test clip with a sine tone; returns its path. */
async function clip(name: string, seconds: number, codecArgs: string[]): Promise<string> {
  const path = join(dir, name);
  const lavfi = (source: string) => ["-f", "lavfi", "-i", `${source}:duration=${seconds}`];
  await run("ffmpeg", [
    ...["-v", "error", "-y"],
    ...lavfi("testsrc=size=320x240:rate=25"),
    ...lavfi("sine=frequency=440"),
    ...codecArgs,
    path,
  ]);
  return path;
}

async function ffprobeSeconds(path: string): Promise<number> {
  const args = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path];
  return Number((await run("ffprobe", args)).stdout.trim());
}

/** Encoders every ffmpeg build has (no libx264 needed). */
const MPEG4_AAC = ["-c:v", "mpeg4", "-c:a", "aac"];

describe.skipIf(!hasFfmpeg)(
  "readVideoHeader on clips made by ffmpeg (skipped without ffmpeg/ffprobe)",
  () => {
    const cases: Array<[string, number, string[], string]> = [
      ["plain.mp4", 7.5, MPEG4_AAC, "mp4"],
      ["faststart.mp4", 3, [...MPEG4_AAC, "-movflags", "+faststart"], "mp4"],
      ["clip.mov", 7.5, MPEG4_AAC, "mov"],
      ["clip.mkv", 3, MPEG4_AAC, "matroska"],
      ["clip.avi", 7.5, ["-c:v", "mpeg4", "-c:a", "pcm_s16le"], "avi"],
    ];
    it.each(cases)("%s: ffprobe's length and 320×240", async (name, seconds, args, container) => {
      const path = await clip(name, seconds, args);
      const header = await readVideoHeader(path);
      expect(header).toMatchObject({ width: 320, height: 240, container });
      expect(Math.abs((header?.durationSec ?? 0) - (await ffprobeSeconds(path)))).toBeLessThan(0.1);
      expect(Math.abs((header?.durationSec ?? 0) - seconds)).toBeLessThan(0.1);
    });

    it.skipIf(webmSkipped)(`webm (VP8): ffprobe's length and 320×240${webmSkipped}`, async () => {
      const vp8 = ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8"];
      const audio = hasEncoder("libopus") ? ["-c:a", "libopus"] : ["-an"];
      const path = await clip("clip.webm", 3, [...vp8, ...audio]);
      const header = await readVideoHeader(path);
      expect(header).toMatchObject({ width: 320, height: 240, container: "webm" });
      expect(Math.abs((header?.durationSec ?? 0) - (await ffprobeSeconds(path)))).toBeLessThan(0.1);
    });

    it("fragmented mp4 with an empty moov and no mehd: length unknown", async () => {
      const path = await clip("fragmented.mp4", 3, [
        ...MPEG4_AAC,
        ...["-movflags", "frag_keyframe+empty_moov"],
      ]);
      expect(await readVideoHeader(path)).toBeNull();
    });

    it("an mp4 cut after 1 KB, or cut inside its moov: null", async () => {
      const plain = await readFile(await clip("to-cut.mp4", 3, MPEG4_AAC));
      const fast = await readFile(
        await clip("to-cut-fast.mp4", 3, [...MPEG4_AAC, "-movflags", "+faststart"]),
      );
      for (const [name, bytes] of [
        ["first-kb.mp4", plain.subarray(0, 1024)],
        ["first-kb-fast.mp4", fast.subarray(0, 1024)],
        ["no-moov-end.mp4", plain.subarray(0, plain.length - 200)],
      ] as const) {
        await writeFile(join(dir, name), bytes);
        expect(await readVideoHeader(join(dir, name)), name).toBeNull();
      }
    });

    it("reads a 50 MB mdat (64-bit largesize) with the moov after it in a few small reads", async () => {
      // ftyp, then an mdat holding 50 MB (a hole: cheap on disk), then the clip's real moov.
      const source = await readFile(await clip("source.mp4", 3, MPEG4_AAC));
      const moov = topLevelBoxes(source).find((box) => box.type === "moov");
      const padded = join(dir, "padded.mp4");
      const mdatSize = 16 + 50 * 1024 * 1024;
      const ftyp = box("ftyp", Buffer.from("isom\0\0\x02\0isommp41", "latin1"));
      const mdatHeader = largeBoxHeader("mdat", mdatSize);
      const file = await open(padded, "w");
      await file.write(Buffer.concat([ftyp, mdatHeader]), 0, undefined, 0);
      // The moov gets a 64-bit header too, so its children start 16 bytes in.
      const moovBody = source.subarray(moov!.start + 8, moov!.end);
      const moovHeader = largeBoxHeader("moov", 16 + moovBody.length);
      await file.write(Buffer.concat([moovHeader, moovBody]), 0, undefined, ftyp.length + mdatSize);
      await file.close();

      const reads = await countReads(async () => {
        const started = performance.now();
        const header = await readVideoHeader(padded);
        expect(header).toMatchObject({ width: 320, height: 240, container: "mp4" });
        expect(header?.durationSec).toBeCloseTo(3, 1);
        expect(performance.now() - started).toBeLessThan(500);
      });
      expect(reads.calls).toBeGreaterThan(0);
      expect(reads.bytes).toBeLessThan(64 * 1024);
    });
  },
);

describe("readVideoHeader on hand-made headers", () => {
  it("mp4: mvhd version 1, and the size of the first *video* track (an audio trak comes first)", async () => {
    const mvhd = fullBox("mvhd", 1, u64(0), u64(0), u32(90_000), u64(90_000n * 3600n * 5n));
    const sound = trak("soun", tkhd(1, 0, 0));
    const video = trak("vide", tkhd(1, 1920, 1080));
    const path = await write("v1.mp4", ftypBox("mp42"), box("moov", mvhd, sound, video));
    expect(await readVideoHeader(path)).toEqual({
      durationSec: 5 * 3600,
      width: 1920,
      height: 1080,
      container: "mp4",
      video: true,
    });
    // Sound alone (an M4A saved as .mp4): a length, and no picture.
    const soundOnly = await write("sound.mp4", ftypBox("mp42"), box("moov", mvhd, sound));
    expect(await readVideoHeader(soundOnly)).toEqual({
      durationSec: 5 * 3600,
      container: "mp4",
      video: false,
    });
  });

  it("fragmented mp4: mehd's fragment duration when mvhd states none; QuickTime brand → mov", async () => {
    const mvhd = fullBox("mvhd", 0, u32(0), u32(0), u32(1000), u32(0));
    const mvex = box("mvex", fullBox("mehd", 1, u64(12_500n)));
    const path = await write("mehd.mov", ftypBox("qt  "), box("moov", mvhd, mvex));
    expect(await readVideoHeader(path)).toEqual({ durationSec: 12.5, container: "mov" });
  });

  it("matroska: unknown-size Segment and Info, Info after 1 MB of Void, default timestamp scale", async () => {
    // Info's unknown size ends where Tracks (a top-level ID) begins.
    const info = ebmlUnknownSize(ID.info, ebml(ID.duration, f64(42_000))); // 42 000 ms
    const audio = ebml(ID.trackEntry, ebml(ID.trackType, [2]));
    const pixels = ebml(
      ID.video,
      ebml(ID.pixelWidth, [0x07, 0x80]),
      ebml(ID.pixelHeight, [0x04, 0x38]),
    );
    const video = ebml(ID.trackEntry, ebml(ID.trackType, [1]), pixels);
    const tracks = ebml(ID.tracks, audio, video);
    const segment = ebmlUnknownSize(ID.segment, voidElement(1024 * 1024), info, tracks);
    const path = await write("unknown.mkv", ebmlHeader("matroska"), segment);
    expect(await readVideoHeader(path)).toEqual({
      durationSec: 42,
      width: 1920,
      height: 1080,
      container: "matroska",
      video: true,
    });
    const soundOnly = ebmlUnknownSize(ID.segment, info, ebml(ID.tracks, audio));
    const mka = await write("sound.mkv", ebmlHeader("matroska"), soundOnly);
    expect(await readVideoHeader(mka)).toEqual({
      durationSec: 42,
      container: "matroska",
      video: false,
    });
  });

  it("matroska: Info beyond the first 4 MB, or with no Duration, gives null", async () => {
    const info = ebml(ID.info, ebml(ID.timestampScale, MS_SCALE), ebml(ID.duration, f64(9000)));
    const far = ebmlUnknownSize(ID.segment, voidElement(5 * 1024 * 1024), info);
    expect(await readVideoHeader(await write("far.webm", ebmlHeader("webm"), far))).toBeNull();
    const near = ebmlUnknownSize(ID.segment, info);
    expect(await readVideoHeader(await write("near.webm", ebmlHeader("webm"), near))).toEqual({
      durationSec: 9,
      container: "webm",
    });
    const bare = ebmlUnknownSize(ID.segment, ebml(ID.info, ebml(ID.timestampScale, MS_SCALE)));
    expect(await readVideoHeader(await write("bare.mkv", ebmlHeader("matroska"), bare))).toBeNull();
    const other = await write("other.mkv", ebmlHeader("notmkv"), near);
    expect(await readVideoHeader(other)).toBeNull();
  });

  it("avi: OpenDML's dmlh total frames wins over avih's first-RIFF count", async () => {
    const avih = Buffer.alloc(56);
    avih.writeUInt32LE(40_000, 0); // 25 fps
    avih.writeUInt32LE(100, 16); // frames in the first RIFF chunk only
    avih.writeUInt32LE(640, 32);
    avih.writeUInt32LE(480, 36);
    const hdrl = riffList(
      "hdrl",
      riffChunk("avih", avih),
      riffList("odml", riffChunk("dmlh", u32le(90_000))),
    );
    const path = await write("opendml.avi", riff("AVI ", hdrl, riffList("movi")));
    expect(await readVideoHeader(path)).toEqual({
      durationSec: 3600,
      width: 640,
      height: 480,
      container: "avi",
    });
  });

  it("a text file, an empty file or noise: null, never a throw; a missing file rejects", async () => {
    expect(
      await readVideoHeader(await write("notes.txt", Buffer.from("just some text\n"))),
    ).toBeNull();
    expect(await readVideoHeader(await write("empty.mp4", Buffer.alloc(0)))).toBeNull();
    expect(
      await readVideoHeader(await write("riff.avi", Buffer.from("RIFF\0\0\0\0AVI "))),
    ).toBeNull();
    const overrun = box("moov", Buffer.from([0, 0, 0, 200, ...Buffer.from("mvhd")]));
    expect(await readVideoHeader(await write("overrun.mp4", overrun))).toBeNull();
    const shortMvhd = box("moov", box("mvhd", Buffer.from([0, 0, 0, 0])));
    expect(await readVideoHeader(await write("short.mp4", shortMvhd))).toBeNull();
    await expect(readVideoHeader(join(dir, "absent.mp4"))).rejects.toThrow(/ENOENT/);
  });
});

// ---------------------------------------------------------------- fixture builders

async function write(name: string, ...parts: Buffer[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, Buffer.concat(parts));
  return path;
}

/**
 * Calls and bytes of every FileHandle.read while `action` runs: readVideoHeader reads slices
 * through FileHandle.read, so a whole-file read would show up here as megabytes.
 */
async function countReads(action: () => Promise<void>): Promise<{ calls: number; bytes: number }> {
  const probe = await open(join(dir, "probe"), "w");
  const prototype = Object.getPrototypeOf(probe);
  await probe.close();
  const read = prototype.read;
  const counted = { calls: 0, bytes: 0 };
  const spy = vi.spyOn(prototype, "read").mockImplementation(async function (
    this: unknown,
    ...args
  ) {
    const result = await read.apply(this, args);
    counted.calls++;
    counted.bytes += result.bytesRead;
    return result;
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return counted;
}

const u32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
const u64 = (n: number | bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

function box(type: string, ...body: Buffer[]): Buffer {
  const content = Buffer.concat(body);
  return Buffer.concat([u32(8 + content.length), Buffer.from(type, "latin1"), content]);
}
/** A box header with size 1 and the 64-bit largesize after the type. */
function largeBoxHeader(type: string, size: number): Buffer {
  return Buffer.concat([u32(1), Buffer.from(type, "latin1"), u64(size)]);
}
function fullBox(type: string, version: number, ...body: Buffer[]): Buffer {
  return box(type, Buffer.from([version, 0, 0, 0]), ...body);
}
const ftypBox = (brand: string) => box("ftyp", Buffer.from(`${brand}\0\0\0\0${brand}`, "latin1"));

function tkhd(version: 0 | 1, width: number, height: number): Buffer {
  const times = version === 1 ? Buffer.alloc(32) : Buffer.alloc(20);
  return fullBox("tkhd", version, times, Buffer.alloc(52), u32(width * 65536), u32(height * 65536));
}
function trak(handler: string, trackHeader: Buffer): Buffer {
  const hdlr = fullBox("hdlr", 0, u32(0), Buffer.from(handler, "latin1"), Buffer.alloc(13));
  return box("trak", trackHeader, box("mdia", hdlr));
}

/** `[{type, start, end}]` of a real MP4's top-level boxes (32-bit sizes, as ffmpeg writes here). */
function topLevelBoxes(file: Buffer) {
  const boxes: Array<{ type: string; start: number; end: number }> = [];
  for (let start = 0; start + 8 <= file.length; ) {
    const end = start + file.readUInt32BE(start);
    boxes.push({ type: file.toString("latin1", start + 4, start + 8), start, end });
    start = end;
  }
  return boxes;
}

/** Matroska element IDs the fixtures use: the reader's own, plus Void for padding. */
const ID = { ...EBML, ebml: EBML.header, void: 0xec };

const idBytes = (id: number) => Buffer.from(id.toString(16).padStart(2, "0"), "hex");

/** An EBML element with an 8-byte size (any size is valid in any length). */
function ebml(id: number, ...body: Array<Buffer | number[]>): Buffer {
  const content = Buffer.concat(body.map((part) => Buffer.from(part)));
  const size = u64(content.length);
  size[0] = 0x01; // 8-byte length marker (sizes here stay below 2^56)
  return Buffer.concat([idBytes(id), size, content]);
}
/** An EBML element of unknown size: it runs until an element that cannot be its child. */
function ebmlUnknownSize(id: number, ...children: Buffer[]): Buffer {
  const unknown = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  return Buffer.concat([idBytes(id), unknown, ...children]);
}
const f64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(n);
  return b;
};
const ebmlHeader = (docType: string) => ebml(ID.ebml, ebml(ID.docType, Buffer.from(docType)));
const voidElement = (length: number) => ebml(ID.void, Buffer.alloc(length));
const MS_SCALE = [0x0f, 0x42, 0x40]; // TimestampScale 1 000 000 ns

function riffChunk(id: string, body: Buffer): Buffer {
  const size = u32le(body.length);
  return Buffer.concat([Buffer.from(id, "latin1"), size, body, Buffer.alloc(body.length % 2)]);
}
const riffList = (type: string, ...chunks: Buffer[]) =>
  riffChunk("LIST", Buffer.concat([Buffer.from(type, "latin1"), ...chunks]));
const riff = (type: string, ...chunks: Buffer[]) =>
  riffChunk("RIFF", Buffer.concat([Buffer.from(type, "latin1"), ...chunks]));

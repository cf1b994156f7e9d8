import { describe, expect, it } from "vitest";
import {
  type FieldMotion,
  humProminence,
  humProminenceOf,
  parseEbur128,
  parseIdetSummary,
  parseSourceInfo,
  parseVidstabMotions,
  rotationFromStream,
  shakeRatio,
  shakeRatioOfChunks,
  sumIdetSummaries,
} from "./analysis.js";
import { MediaError } from "./errors.js";
import { LIMITS } from "./plan.js";

const videoStream = (extra: Record<string, unknown> = {}) => ({
  codec_type: "video",
  codec_name: "h264",
  width: 720,
  height: 576,
  avg_frame_rate: "25/1",
  ...extra,
});

describe("parseSourceInfo", () => {
  it("reads size, rate, field order, aspect, matrix and audio from ffprobe JSON", () => {
    const info = parseSourceInfo({
      streams: [
        videoStream({ field_order: "tb", sample_aspect_ratio: "16:15", color_space: "bt470bg" }),
        {
          index: 1,
          codec_type: "audio",
          codec_name: "pcm_s16le",
          sample_rate: "48000",
          channels: 2,
        },
      ],
      format: { duration: "12.480000" },
    });
    expect(info).toMatchObject({
      width: 720,
      height: 576,
      fps: 25,
      fieldOrder: "bff",
      sarNum: 16,
      sarDen: 15,
      colorMatrix: "bt601",
      videoStreamIndex: 0,
      audio: { streamIndex: 1, codec: "pcm_s16le", sampleRate: 48000, channels: 2 },
      headerDurationSec: 12.48,
    });
  });

  it("falls back to r_frame_rate and square pixels when the header says nothing useful", () => {
    const info = parseSourceInfo({
      streams: [
        videoStream({
          avg_frame_rate: "0/0",
          r_frame_rate: "30000/1001",
          sample_aspect_ratio: "0:1",
        }),
      ],
    });
    expect(info.fps).toBeCloseTo(29.97, 2);
    expect([info.sarNum, info.sarDen]).toEqual([1, 1]);
    expect(info.audio).toBeNull();
    expect(info.headerDurationSec).toBeNull();
  });

  it("refuses files without video, including audio files with cover art", () => {
    const coverArt = { streams: [{ ...videoStream(), disposition: { attached_pic: 1 } }] };
    for (const probe of [{ streams: [{ codec_type: "audio" }] }, coverArt, {}]) {
      expect(() => parseSourceInfo(probe)).toThrow(MediaError);
    }
    try {
      parseSourceInfo({});
    } catch (err) {
      expect((err as MediaError).code).toBe("no_video");
    }
  });
});

describe("rotationFromStream", () => {
  it("turns ffprobe's counter-clockwise display matrix into a clockwise correction", () => {
    expect(rotationFromStream({ side_data_list: [{ rotation: -90 }] })).toBe(90);
    expect(rotationFromStream({ side_data_list: [{ rotation: 90 }] })).toBe(270);
    expect(rotationFromStream({ side_data_list: [{ rotation: 180 }] })).toBe(180);
    expect(rotationFromStream({ side_data_list: [{ rotation: -180 }] })).toBe(180);
  });

  it("reads the legacy rotate tag (clockwise) and ignores missing data", () => {
    expect(rotationFromStream({ tags: { rotate: "90" } })).toBe(90);
    expect(rotationFromStream({})).toBe(0);
  });
});

describe("parseIdetSummary", () => {
  it("takes the last multi-frame summary", () => {
    const stderr = [
      "[Parsed_idet_0 @ 0x1] Single frame detection: TFF: 70 BFF: 1 Progressive: 2 Undetermined: 2",
      "[Parsed_idet_0 @ 0x1] Multi frame detection: TFF:    74 BFF:     0 Progressive:     0 Undetermined:     1",
    ].join("\n");
    expect(parseIdetSummary(stderr)).toEqual({ tff: 74, bff: 0, progressive: 0, undetermined: 1 });
    expect(parseIdetSummary("nothing here")).toBeNull();
  });
});

describe("sumIdetSummaries", () => {
  it("adds up the summaries of one idet per excerpt", () => {
    const line = (t: number, b: number, p: number, u: number) =>
      `[Parsed_idet_${t} @ 0x1] Multi frame detection: TFF: ${t} BFF: ${b} Progressive: ${p} Undetermined: ${u}`;
    const stderr = [line(10, 0, 2, 1), "frame= 40", line(0, 1, 11, 1)].join("\n");
    expect(sumIdetSummaries(stderr)).toEqual({ tff: 10, bff: 1, progressive: 13, undetermined: 2 });
    expect(sumIdetSummaries("nothing here")).toBeNull();
  });
});

describe("parseVidstabMotions and shakeRatio", () => {
  const grid = (dx: number, dy: number): FieldMotion[] =>
    [0, 1, 2, 3, 4].map((i) => ({ x: 40 * i, y: 40, dx, dy }));

  it("parses local motions per frame", () => {
    const trf = [
      "VID.STAB 1",
      "Frame 1 (List 0 [])",
      "Frame 2 (List 2 [(LM 8 -6 179 56 32 0.57 0.62),(LM -3 2 220 98 32 0.44 0.33)])",
    ].join("\n");
    expect(parseVidstabMotions(trf)).toEqual([
      [],
      [
        { dx: 8, dy: -6, x: 179, y: 56 },
        { dx: -3, dy: 2, x: 220, y: 98 },
      ],
    ]);
  });

  it("scores a steady shot and a smooth pan as no shake", () => {
    expect(
      shakeRatio(
        Array.from({ length: 50 }, () => grid(0, 0)),
        240,
      ),
    ).toBe(0);
    expect(
      shakeRatio(
        Array.from({ length: 50 }, () => grid(3, 1)),
        240,
      ),
    ).toBe(0);
  });

  it("scores hand-held jitter as shake", () => {
    const frames = Array.from({ length: 50 }, (_, i) => grid(i % 2 ? 6 : -6, i % 3 ? 4 : -4));
    expect(shakeRatio(frames, 240)).toBeGreaterThan(LIMITS.shakeRatio);
  });

  // Coarse grain misleads each field's motion search its own way (3-px grain over forest: 2-3 px
  // in every field, 0.81 % of the height by the fields' median size); a shaking camera moves
  // every field the same way.
  const grainy = (i: number, shared: { dx: number; dy: number }): FieldMotion[] =>
    [0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => ({
      x: 40 * k,
      y: 40,
      dx: 3 + shared.dx + (((i * 4 + k) % 9) - 4),
      dy: shared.dy + (((i * 7 + k * 2) % 9) - 4),
    }));

  it("does not read coarse grain on a pan as shake", () => {
    const frames = Array.from({ length: 50 }, (_, i) => grainy(i, { dx: 0, dy: 0 }));
    // The fields' median deviation read 1.02 % here: stabilised.
    expect(shakeRatio(frames, 240)).toBeLessThan(LIMITS.shakeRatio / 4);
  });

  it("reads a shaking camera through the same grain", () => {
    const jitter = (i: number) => ({ dx: i % 2 ? 6 : -6, dy: i % 3 ? 4 : -4 });
    const frames = Array.from({ length: 50 }, (_, i) => grainy(i, jitter(i)));
    expect(shakeRatio(frames, 240)).toBeGreaterThan(LIMITS.shakeRatio);
  });

  it("ignores an object moving through a steady shot", () => {
    const frames = Array.from({ length: 50 }, (_, i) => {
      const g = grid(0, 0);
      g[0] = { ...(g[0] as FieldMotion), dx: i % 2 ? 9 : -9 };
      return g;
    });
    expect(shakeRatio(frames, 240)).toBe(0);
  });
});

describe("shakeRatioOfChunks", () => {
  const steady = (n: number, dx: number): FieldMotion[][] =>
    Array.from({ length: n }, () => [0, 1, 2, 3].map((k) => ({ x: 40 * k, y: 40, dx, dy: 0 })));
  it("does not read the cut between two steady excerpts as shake", () => {
    // The second excerpt's first motion is measured across the cut: garbage, field by field.
    const cut = [0, 1, 2, 3].map((k) => ({ x: 40 * k, y: 40, dx: 25 * (k - 1.5), dy: 40 }));
    const frames = [...steady(20, 0), cut, ...steady(19, 0)];
    expect(shakeRatio(frames, 240)).toBeGreaterThan(0);
    expect(shakeRatioOfChunks(frames, 20, 240)).toBe(0);
  });
});

describe("humProminence", () => {
  const rate = 2000;
  // Deterministic pseudo-noise so the test never flakes.
  const noise = (i: number) =>
    Math.sin(i * 12.9898) * 43758.5453 - Math.floor(Math.sin(i * 12.9898) * 43758.5453) - 0.5;
  const signal = (hum: number | null) => {
    const out = new Float32Array(rate * 4);
    for (let i = 0; i < out.length; i++) {
      const t = i / rate;
      const h = hum
        ? 0.2 * Math.sin(2 * Math.PI * hum * t) + 0.1 * Math.sin(2 * Math.PI * 2 * hum * t)
        : 0;
      out[i] = 0.3 * noise(i) + h;
    }
    return out;
  };

  it("finds 50 Hz hum and not 60", () => {
    const { db50, db60 } = humProminence(signal(50), rate);
    expect(db50).toBeGreaterThan(15);
    expect(db60).toBeLessThan(6);
  });

  it("finds 60 Hz hum and not 50", () => {
    const { db50, db60 } = humProminence(signal(60), rate);
    expect(db60).toBeGreaterThan(15);
    expect(db50).toBeLessThan(6);
  });

  it("scores excerpts like one track, blocks never straddling two", () => {
    const whole = signal(50);
    const parts = [whole.subarray(0, rate * 2), whole.subarray(rate * 2)];
    expect(humProminenceOf(parts, rate).db50).toBeCloseTo(humProminence(whole, rate).db50, 6);
  });

  it("finds neither in plain noise", () => {
    const { db50, db60 } = humProminence(signal(null), rate);
    expect(Math.max(db50, db60)).toBeLessThan(6);
  });
});

describe("parseEbur128", () => {
  const summary = (i: string, lra = "5.2", peak = "-3.1") =>
    `[Parsed_ebur128_0 @ 0x1] t: 9.9  TARGET:-23 LUFS    M: -23.1 S: -23.4     I: -23.5 LUFS\n` +
    `[Parsed_ebur128_0 @ 0x1] Summary:\n\n  Integrated loudness:\n    I:         ${i} LUFS\n` +
    `    Threshold: -33.4 LUFS\n\n  Loudness range:\n    LRA:         ${lra} LU\n` +
    `    Threshold: -43.5 LUFS\n    LRA low:   -26.1 LUFS\n    LRA high:  -20.9 LUFS\n\n` +
    `  True peak:\n    Peak:       ${peak} dBFS\n`;

  it("reads the summary, not the running lines before it", () => {
    expect(parseEbur128(`size=N/A\n${summary("-23.4")}`)).toEqual({
      inputI: -23.4,
      inputTp: -3.1,
      inputLra: 5.2,
      inputThresh: -33.4,
      targetOffset: 0,
    });
  });

  it("passes a range below its tenths as 0.05 LU, which loudnorm's linear pass accepts", () => {
    expect(parseEbur128(summary("-23.4", "0.0"))?.inputLra).toBe(0.05);
  });

  it("returns null for silence (no peak) and for missing output", () => {
    expect(parseEbur128(summary("-70.0", "0.0", "-inf"))).toBeNull();
    expect(parseEbur128("no summary")).toBeNull();
  });
});

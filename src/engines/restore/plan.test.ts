import { describe, expect, it } from "vitest";
import { measured, plan, source, without } from "../../../test/restore/plan-input.js";
import { buildVideoFilter } from "./chain.js";
import { DENOISE, LIMITS, maxrateFor, upscaleFactor } from "./plan.js";
import type { Measurements } from "./types.js";

describe("deinterlacing", () => {
  it("deinterlaces with bwdif at the parity idet measured", () => {
    const p = plan("faithful", {
      measured: measured({ interlace: { tff: 3, bff: 200, progressive: 10, undetermined: 30 } }),
    });
    expect(p.video.deinterlace).toEqual({ filter: "bwdif", parity: "bff", sendField: false });
    expect(p.video.output.fps).toBe(25);
  });

  it("doubles to field rate in Studio Max", () => {
    const p = plan("enhanced_max", {
      measured: measured({ interlace: { tff: 200, bff: 0, progressive: 0, undetermined: 0 } }),
    });
    expect(p.video.deinterlace?.sendField).toBe(true);
    expect(p.video.output.fps).toBe(50);
  });

  it("leaves progressive video alone, even when fine detail trips idet both ways", () => {
    expect(plan("faithful").video.deinterlace).toBeNull();
    const mixed = measured({ interlace: { tff: 41, bff: 25, progressive: 9, undetermined: 0 } });
    expect(plan("faithful", { measured: mixed }).video.deinterlace).toBeNull();
  });

  it("keeps a flagged field order when idet calls soft, noisy fields progressive", () => {
    // Measured: five of six bottom-field-first VHS clips read as progressive by idet.
    const p = plan("faithful", {
      source: source({ fieldOrder: "bff" }),
      measured: measured({ interlace: { tff: 0, bff: 3, progressive: 97, undetermined: 0 } }),
    });
    expect(p.video.deinterlace?.parity).toBe("bff");
    expect(p.notes.join(" ")).toContain("header says bff → bff");
  });

  it("lets clear combing of the other order overrule a flagged field order", () => {
    const p = plan("faithful", {
      source: source({ fieldOrder: "tff" }),
      measured: measured({ interlace: { tff: 2, bff: 80, progressive: 40, undetermined: 0 } }),
    });
    expect(p.video.deinterlace?.parity).toBe("bff");
  });

  it("trusts the header's field order when idet could not decide (static picture)", () => {
    const p = plan("faithful", {
      source: source({ fieldOrder: "tff" }),
      measured: measured({ interlace: { tff: 1, bff: 0, progressive: 2, undetermined: 200 } }),
    });
    expect(p.video.deinterlace?.parity).toBe("tff");
  });

  it("measurement overrules a header that calls interlaced video progressive", () => {
    const p = plan("faithful", {
      source: source({ fieldOrder: "progressive" }),
      measured: measured({ interlace: { tff: 90, bff: 2, progressive: 60, undetermined: 0 } }),
    });
    expect(p.video.deinterlace?.parity).toBe("tff");
  });

  it("falls back to yadif when bwdif is missing", () => {
    const p = plan("faithful", {
      caps: without("bwdif"),
      measured: measured({ interlace: { tff: 90, bff: 0, progressive: 0, undetermined: 0 } }),
    });
    expect(p.video.deinterlace?.filter).toBe("yadif");
  });
});

describe("stabilisation", () => {
  const shaky = measured({ shakeRatio: LIMITS.shakeRatio * 3 });

  it("stabilises enhanced output only when shake was measured", () => {
    expect(plan("enhanced", { measured: shaky }).video.stabilise).not.toBeNull();
    expect(plan("enhanced").video.stabilise).toBeNull();
    expect(
      plan("enhanced", { measured: measured({ shakeRatio: null }) }).video.stabilise,
    ).toBeNull();
  });

  it("keeps faithful framing as shot, and needs vid.stab in this ffmpeg", () => {
    expect(plan("faithful", { measured: shaky }).video.stabilise).toBeNull();
    const noVidstab = without("vidstabtransform");
    expect(plan("enhanced", { measured: shaky, caps: noVidstab }).video.stabilise).toBeNull();
  });
});

describe("geometry", () => {
  it("faithful keeps the size and crops odd sizes to even", () => {
    expect(plan("faithful").video.output).toMatchObject({ width: 640, height: 480 });
    const odd = plan("faithful", { source: source({ width: 321, height: 241 }) });
    expect(odd.video.crop).toEqual({ width: 320, height: 240 });
    expect(odd.video.scale).toBeNull();
  });

  it("enhanced scales towards 720 lines (at most 2×) and makes odd sizes even", () => {
    expect(plan("enhanced").video.scale).toMatchObject({ width: 960, height: 720 });
    const odd = plan("enhanced", { source: source({ width: 321, height: 241 }) });
    // zimg refuses odd 4:2:0 sizes: swscale in its accurate mode resizes those.
    expect(odd.video.scale).toMatchObject({ width: 642, height: 482, filter: "scale" });
  });

  it("Studio Max aims at the 1080 class, between 2× and 3×", () => {
    expect(plan("enhanced_max").video.output).toMatchObject({ width: 1440, height: 1080 });
    const tiny = plan("enhanced_max", { source: source({ width: 320, height: 240 }) });
    expect(tiny.video.output).toMatchObject({ width: 960, height: 720 });
  });

  it("never enlarges past its screen class, never beyond 3840x2160 and never shrinks", () => {
    const hd = plan("enhanced", { source: source({ width: 1920, height: 1080 }) });
    expect(hd.video.scale).toBeNull();
    expect(hd.video.output).toMatchObject({ width: 1920, height: 1080 });
    const hdMax = plan("enhanced_max", { source: source({ width: 1280, height: 720 }) });
    expect(hdMax.video.output).toMatchObject({ width: 1920, height: 1080 });
    const uhd = plan("enhanced_max", { source: source({ width: 3840, height: 2160 }) });
    expect(uhd.video.scale).toBeNull();
    expect(uhd.video.output).toMatchObject({ width: 3840, height: 2160 });
    expect(upscaleFactor("enhanced", 2560, 1440)).toBe(1);
    expect(upscaleFactor("enhanced", 320, 240)).toBe(2);
  });

  it("swaps the dimensions of rotated phone video", () => {
    const rotated = source({ width: 640, height: 360, rotationCw: 90 });
    expect(plan("faithful", { source: rotated }).video.output).toMatchObject({
      width: 360,
      height: 640,
    });
    expect(plan("enhanced", { source: rotated }).video.output).toMatchObject({
      width: 720,
      height: 1280,
    });
    expect(plan("enhanced", { source: rotated }).video.scale?.filter).toBe("zscale");
  });

  it("scales anamorphic PAL to square pixels at its true shape", () => {
    const pal = source({ width: 720, height: 576, sarNum: 16, sarDen: 15 });
    expect(plan("enhanced", { source: pal }).video.output).toMatchObject({
      width: 960,
      height: 720,
    });
    expect(plan("enhanced_max", { source: pal }).video.output).toMatchObject({
      width: 1440,
      height: 1080,
    });
  });

  it("Studio Max enlarges a picture it did not denoise, deblock or sharpen with a wider lanczos", () => {
    const clean = measured({ noise: { y: 0.3, c: 0.2 } });
    const p = plan("enhanced_max", { measured: clean });
    expect(p.video.denoise).toEqual([]);
    expect(p.video.deblock).toBeNull();
    expect(p.video.scale?.taps).toBe(LIMITS.studioMaxLanczosTaps);
    expect(buildVideoFilter(p, "/t/x.trf")).toContain(
      "zscale=w=1440:h=1080:filter=lanczos:param_a=4:matrixin=470bg:matrix=709,setsar=1",
    );
    const swscale = plan("enhanced_max", { measured: clean, caps: without("zscale") });
    expect(buildVideoFilter(swscale, "/t/x.trf")).toContain(
      "scale=1440:1080:flags=lanczos+accurate_rnd+full_chroma_int:param0=4:in_color_matrix=bt601",
    );
    // Enhanced keeps the scaler's own 3 taps, and so does Studio Max where it took grain or
    // compression blocks out (a sharper kernel would keep what the filters left).
    expect(plan("enhanced", { measured: clean }).video.scale?.taps).toBeUndefined();
    const grainy = plan("enhanced_max", { measured: measured({ noise: { y: 4.04, c: 4.89 } }) });
    expect(grainy.video.denoise).not.toEqual([]);
    expect(grainy.video.scale?.taps).toBeUndefined();
    expect(buildVideoFilter(grainy, "/t/x.trf")).toContain("filter=lanczos:matrixin=470bg");
    const blocks = { ratio: 5.23, flatShare: 0.59 };
    const blocked = plan("enhanced_max", { measured: measured({ ...clean, blockiness: blocks }) });
    expect(blocked.video.deblock).not.toBeNull();
    expect(blocked.video.scale?.taps).toBeUndefined();
    // A sharpened picture too: the wider kernel added to the mask's overshoot.
    const soft = plan("enhanced_max", { measured: measured({ ...clean, blur: 0.9 }) });
    expect(soft.video.sharpen).not.toBeNull();
    expect(soft.video.scale?.taps).toBeUndefined();
  });

  it("converts SD BT.601 colours to BT.709 when the output becomes HD", () => {
    expect(plan("enhanced").video.scale?.convertMatrixTo709).toBe(true);
    const small = plan("enhanced", { source: source({ width: 240, height: 180 }) });
    expect(small.video.scale?.convertMatrixTo709).toBe(false);
    const hd709 = plan("enhanced_max", { source: source({ width: 1280, height: 720 }) });
    expect(hd709.video.scale?.convertMatrixTo709).toBe(false);
  });
});

describe("tone", () => {
  const levels = (over: Partial<NonNullable<Measurements["levels"]>>) =>
    measured({
      levels: { yLow: 60, yMid: 120, yHigh: 180, dark: 45, bright: 195, sat: 12, ...over },
    });

  it("stretches a faded picture (its whole veil lifted, its whites dim) in Enhanced", () => {
    const p = plan("enhanced", { measured: levels({}) });
    expect(p.video.levels?.gain).toBeCloseTo(LIMITS.fadeTargetRange / 150, 2);
    // Faded colour comes back with the contrast, capped.
    expect(p.video.saturation).toBe(Math.min(LIMITS.maxSaturation, p.video.levels?.gain ?? 0));
    expect(p.notes.join("\n")).toMatch(/faded: veil off/);
  });

  it("leaves fog, a lifted grade and a full-range picture alone (tone.test.ts has the rest)", () => {
    expect(plan("enhanced", { measured: levels({ sat: 0, dark: 34 }) }).video.levels).toBeNull();
    expect(
      plan("enhanced", { measured: levels({ dark: 34, bright: 236 }) }).video.levels,
    ).toBeNull();
    expect(plan("enhanced").video.levels).toBeNull();
    expect(plan("enhanced").video.saturation).toBeNull();
  });

  it("leaves tone alone in Standard", () => {
    const faded = levels({});
    expect(plan("faithful", { measured: faded }).video.levels).toBeNull();
    expect(plan("faithful", { measured: faded }).video.saturation).toBeNull();
  });

  it("drops chroma noise from black-and-white film", () => {
    const bw = levels({ sat: 1, dark: 10, bright: 240 });
    expect(plan("enhanced", { measured: bw }).video.saturation).toBe(0);
  });
});

describe("audio", () => {
  it("has no audio chain for a silent file", () => {
    expect(plan("faithful", { source: source({ audio: null }) }).audio).toBeNull();
  });

  it("notches the mains frequency that was measured", () => {
    const at50 = plan("faithful", { measured: measured({ hum: { db50: 25, db60: 4 } }) });
    expect(at50.audio?.hum).toEqual({ hz: 50, harmonics: 4, widthHz: 4 });
    const at60 = plan("faithful", { measured: measured({ hum: { db50: 3, db60: 22 } }) });
    expect(at60.audio?.hum?.hz).toBe(60);
    expect(plan("faithful").audio?.hum).toBeNull();
    const ambiguous = plan("faithful", { measured: measured({ hum: { db50: 14, db60: 13 } }) });
    expect(ambiguous.audio?.hum).toBeNull();
  });

  it("normalises loudness in two passes, but not near-silence", () => {
    const p = plan("faithful");
    expect(p.audio?.loudness).toMatchObject({ targetI: -16, measured: { inputI: -24 } });
    const quiet = measured({
      loudness: { inputI: -60, inputTp: -40, inputLra: 2, inputThresh: -70, targetOffset: 0 },
    });
    expect(plan("faithful", { measured: quiet }).audio?.loudness).toBeNull();
  });

  it("removes hiss harder in enhanced, and skips it when afftdn is missing", () => {
    expect(plan("faithful").audio?.denoise?.reductionDb).toBe(12);
    // afftdn's 25 ms delay at the delivery rate, which the chain takes back.
    expect(plan("faithful").audio?.denoise?.delaySamples).toBe(1200);
    expect(plan("enhanced").audio?.denoise?.reductionDb).toBe(16);
    expect(plan("faithful", { caps: without("afftdn") }).audio?.denoise).toBeNull();
  });
});

describe("the plan", () => {
  it("is plain data that survives JSON", () => {
    const p = plan("enhanced_max", { measured: measured({ shakeRatio: 0.05 }) });
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
    expect(p.notes.length).toBeGreaterThan(0);
  });

  it("carries the encoder settings it was given", () => {
    const p = plan("faithful", { encode: { x264Preset: "medium", threads: 2 } });
    expect(p.encode).toEqual({
      x264Preset: "medium",
      crf: LIMITS.crf,
      chromaQpOffset: LIMITS.chromaQpOffset,
      maxrateK: 4000,
      bufsizeK: 8000,
      audioBitrateK: 160,
      threads: 2,
    });
  });

  it("encodes at a coarser CRF where the plan takes grain out of the luma", () => {
    const grainy = measured({ noise: { y: 4.04, c: 4.89 } });
    for (const q of ["faithful", "enhanced", "enhanced_max"] as const) {
      expect(plan(q, { measured: grainy }).encode.crf).toBe(DENOISE.crfDenoised);
    }
    expect(plan("enhanced_max", { measured: grainy }).video.denoise).toMatchObject([
      { filter: "nlmeans" },
    ]);
    // Coarse grain at Studio Max: hqdn3d on the colour alone, then non-local means on the luma.
    const coarse = measured({ noise: { y: 8, c: 6, spatialY: 2, spatialC: 5 } });
    expect(plan("enhanced_max", { measured: coarse }).encode.crf).toBe(DENOISE.crfDenoised);
    // Clean texture (nothing denoised), colour grain alone, no hqdn3d: as before.
    expect(plan("faithful", { measured: measured({ noise: { y: 1.6, c: 0.3 } }) }).encode.crf).toBe(
      LIMITS.crf,
    );
    const chromaOnly = measured({ noise: { y: 1.2, c: 4 } });
    expect(plan("enhanced", { measured: chromaOnly }).encode.crf).toBe(LIMITS.crf);
    expect(plan("enhanced", { measured: grainy, caps: without("hqdn3d") }).encode.crf).toBe(
      LIMITS.crf,
    );
    // A CRF asked for is kept.
    expect(plan("faithful", { measured: grainy, encode: { crf: 20 } }).encode.crf).toBe(20);
  });

  it("caps the bitrate by output size like a streaming service; Studio Max spends more", () => {
    expect(maxrateFor("faithful", 720, 576)).toBe(4000);
    expect(maxrateFor("enhanced", 960, 720)).toBe(5000);
    expect(maxrateFor("enhanced", 1920, 1080)).toBe(8000);
    expect(maxrateFor("enhanced_max", 1440, 1080)).toBe(12000);
    expect(maxrateFor("enhanced", 3840, 2160)).toBe(20000);
    expect(plan("enhanced").encode).toMatchObject({ maxrateK: 5000, bufsizeK: 10000 });
  });
});

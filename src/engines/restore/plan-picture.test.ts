import { describe, expect, it } from "vitest";
import { measured, plan, source, without } from "../../../test/restore/plan-input.js";
import { DENOISE, LIMITS, type PlanInput } from "./plan.js";
import type { RestoreQuality } from "./types.js";

describe("denoise", () => {
  const noisy = measured({ noise: { y: 3, c: 4 } });

  it("denoises spatially (no temporal smear of pans) in proportion to the measured noise", () => {
    const p = plan("enhanced", { measured: noisy });
    expect(p.video.denoise).toEqual([
      {
        filter: "hqdn3d",
        lumaSpatial: 6.6,
        chromaSpatial: 11.2,
        lumaTemporal: 0,
        chromaTemporal: 0,
      },
    ]);
    expect(plan("faithful", { measured: noisy }).video.denoise).toEqual(p.video.denoise);
    const heavy = measured({ noise: { y: 12, c: 15 } });
    expect(plan("enhanced", { measured: heavy }).video.denoise).toMatchObject([
      { lumaSpatial: DENOISE.maxLuma, chromaSpatial: DENOISE.maxChroma },
    ]);
  });

  it("sharpens only a picture measured soft, and only in Studio Max", () => {
    const soft = measured({ blur: 1.1 });
    expect(plan("enhanced_max", { measured: soft }).video.sharpen).toEqual({
      size: LIMITS.sharpenSize,
      amount: LIMITS.sharpenAmount,
    });
    expect(plan("enhanced", { measured: soft }).video.sharpen).toBeNull();
    expect(plan("enhanced_max", { measured: measured({ blur: 0.5 }) }).video.sharpen).toBeNull();
    expect(plan("enhanced_max").video.sharpen).toBeNull();
  });

  it("leaves a soft picture unsharpened at Studio Max where it reads compression blocks", () => {
    const at = (ratio: number, flatShare: number) =>
      plan("enhanced_max", { measured: measured({ blur: 0.65, blockiness: { ratio, flatShare } }) })
        .video.sharpen;
    // Held-out `grey blocking-800`: σ 0.65 px, blocks 5.23× at 59 % flat (sharpened: −4.65 dB).
    expect(at(5.23, 0.59)).toBeNull();
    expect(at(LIMITS.blockyRatio, LIMITS.blockyFlatFloor)).toBeNull();
    // Tuning `dune tape-b`: grain steps at the grid (4.89) but leaves 10 % flat; soft blurred
    // pictures read no blocks (`dune blur-1.3` 1.34): both keep their sharpening.
    const mask = { size: LIMITS.sharpenSize, amount: LIMITS.sharpenAmount };
    expect(at(4.89, 0.1)).toEqual(mask);
    expect(at(1.34, 0.48)).toEqual(mask);
    expect(at(LIMITS.blockyRatio - 0.01, 0.8)).toEqual(mask);
    const p = plan("enhanced_max", {
      measured: measured({ blur: 0.65, blockiness: { ratio: 5.23, flatShare: 0.59 } }),
    });
    expect(p.notes).toContain(
      "sharpest edges blurred by σ 0.65 px → soft, but compression blocks: not sharpened",
    );
  });

  it("deblocks weakly before Enhanced's upscale only: Standard keeps the source's size, HD is not scaled", () => {
    const weak = { filter: "deblock", alpha: LIMITS.deblockAlpha, beta: LIMITS.deblockBeta };
    expect(plan("enhanced").video.deblock).toEqual(weak);
    expect(plan("enhanced").notes.join("\n")).toContain("faint compression block edges smoothed");
    expect(plan("faithful").video.deblock).toBeNull();
    expect(plan("enhanced_max").video.deblock).toBeNull();
    const hd = source({ width: 1280, height: 720 });
    expect(plan("enhanced", { source: hd }).video.scale).toBeNull();
    expect(plan("enhanced", { source: hd }).video.deblock).toBeNull();
    expect(plan("enhanced", { caps: without("deblock") }).video.deblock).toBeNull();
  });

  it("evens out the colour grain hqdn3d leaves with fspp before Enhanced's upscale, beside the weak deblock's luma", () => {
    const noisy = measured({ noise: { y: 4.04, c: 4.89 } });
    const p = plan("enhanced", { measured: noisy });
    expect(p.video.denoise).toMatchObject([{ filter: "hqdn3d" }]);
    expect(p.video.deblock).toEqual({
      filter: "fspp-colour",
      alpha: LIMITS.deblockAlpha,
      beta: LIMITS.deblockBeta,
      qp: LIMITS.grainColour.qp,
      strength: LIMITS.grainColour.strength,
    });
    expect(p.notes.join("\n")).toContain(
      "faint compression block edges and the colour grain the denoise leaves smoothed before enlarging",
    );
    // Standard's own SD encode does it on the source's grid; Studio Max's non-local means leaves
    // less; a clean picture has no grain left; HD is not enlarged; without fspp, the weak one.
    expect(plan("faithful", { measured: noisy }).video.deblock).toBeNull();
    expect(plan("enhanced_max", { measured: noisy }).video.deblock).toBeNull();
    expect(plan("enhanced").video.deblock).toMatchObject({ filter: "deblock" });
    const hd = source({ width: 1280, height: 720 });
    expect(plan("enhanced", { measured: noisy, source: hd }).video.deblock).toBeNull();
    expect(plan("enhanced", { measured: noisy, caps: without("fspp") }).video.deblock).toEqual({
      filter: "deblock",
      alpha: LIMITS.deblockAlpha,
      beta: LIMITS.deblockBeta,
    });
    // A blocked flat picture keeps pp7 on every plane, grain or not.
    const blocked = measured({
      noise: { y: 4, c: 5 },
      blockiness: { ratio: 3.44, flatShare: 0.81 },
    });
    expect(plan("enhanced", { measured: blocked }).video.deblock).toEqual({
      filter: "pp7",
      qp: LIMITS.deblockPp7Qp,
    });
  });

  it("takes pp7 where the probe read blocks on a mostly flat picture, at Enhanced and Studio Max", () => {
    const pp7 = { filter: "pp7", qp: LIMITS.deblockPp7Qp };
    const at = (ratio: number, flatShare: number, over: Partial<PlanInput> = {}) =>
      plan("enhanced", { measured: measured({ blockiness: { ratio, flatShare } }), ...over });
    // Tuning `cups blocking-1200` read 3.44 with 81 % of its borders flat.
    expect(at(3.44, 0.81).video.deblock).toEqual(pp7);
    expect(at(3.44, 0.81).notes.join("\n")).toContain(
      "compression blocks smoothed before enlarging (block edges 3.44×",
    );
    expect(at(LIMITS.blockyRatio, LIMITS.blockyFlatShare).video.deblock).toEqual(pp7);
    // Clean `storm` 1.66; grainy `dune grain-10-x3` 5.04 with 3 %: the weak deblock, as on every
    // other Enhanced plan but the textured blocked ones (below).
    for (const [ratio, flat] of [
      [1.66, 0.99],
      [5.04, 0.03],
      [LIMITS.blockyRatio - 0.01, 0.9],
    ] as const) {
      expect(at(ratio, flat).video.deblock).toMatchObject({ filter: "deblock" });
    }
    expect(at(3.44, 0.81, { caps: without("pp7") }).video.deblock).toMatchObject({
      filter: "deblock",
    });
    const blocked = measured({ blockiness: { ratio: 3.44, flatShare: 0.81 } });
    // Studio Max takes pp7 too (held-out `ladybird blocking-800` fell under Enhanced without
    // it), but never the weak deblock, which was not measured with it.
    expect(plan("enhanced_max", { measured: blocked }).video.deblock).toEqual(pp7);
    expect(
      plan("enhanced_max", { measured: measured({ blockiness: { ratio: 1.66, flatShare: 0.99 } }) })
        .video.deblock,
    ).toBeNull();
    expect(plan("enhanced", { measured: measured({ blockiness: null }) }).video.deblock).toEqual({
      filter: "deblock",
      alpha: LIMITS.deblockAlpha,
      beta: LIMITS.deblockBeta,
    });
  });

  it("takes pp7 at Standard on every picture read blocked, at its own size", () => {
    const pp7 = { filter: "pp7", qp: LIMITS.deblockPp7Qp };
    const at = (ratio: number, flatShare: number, over: Partial<PlanInput> = {}) =>
      plan("faithful", { measured: measured({ blockiness: { ratio, flatShare } }), ...over });
    // Tuning `boats blocking-1200` 3.27 at 49 % flat, `dune blocking-800` 3.46 at 47 % (under
    // the floor with x264's in-loop filter alone), `cups blocking-1200` 3.44 at 81 %.
    for (const [ratio, flat] of [
      [3.27, 0.49],
      [3.46, 0.47],
      [3.44, 0.81],
      [LIMITS.blockyRatio, LIMITS.blockyFlatShareStandard],
    ] as const) {
      expect(at(ratio, flat).video.deblock).toEqual(pp7);
      expect(at(ratio, flat).video.scale).toBeNull();
    }
    expect(at(3.27, 0.49).notes.join("\n")).toContain(
      "compression blocks smoothed (block edges 3.27×",
    );
    // Grain (`dune grain-10-x3` 5.04 at 3 %), clean `storm` 1.66, nothing read: no deblock.
    expect(at(5.04, 0.03).video.deblock).toBeNull();
    expect(at(1.66, 0.99).video.deblock).toBeNull();
    expect(at(LIMITS.blockyRatio, LIMITS.blockyFlatShareStandard - 0.01).video.deblock).toBeNull();
    expect(plan("faithful").video.deblock).toBeNull();
    expect(at(3.27, 0.49, { caps: without("pp7") }).video.deblock).toBeNull();
    // HD is kept at its size at Enhanced too, and deblocked as at Standard.
    const hd = source({ width: 1280, height: 720 });
    expect(at(3.27, 0.49, { source: hd }).video.deblock).toEqual(pp7);
    const hdEnhanced = plan("enhanced", {
      source: hd,
      measured: measured({ blockiness: { ratio: 3.27, flatShare: 0.49 } }),
    });
    expect(hdEnhanced.video.scale).toBeNull();
    expect(hdEnhanced.video.deblock).toEqual(pp7);
  });

  it("keeps a textured blocked picture at its size at every quality, deblocked and encoded as at Standard", () => {
    const pp7 = { filter: "pp7", qp: LIMITS.deblockPp7Qp };
    const at = (
      quality: RestoreQuality,
      ratio: number,
      flatShare: number,
      over: Partial<PlanInput> = {},
    ) => plan(quality, { measured: measured({ blockiness: { ratio, flatShare } }), ...over });
    const standard = at("faithful", 3.27, 0.49);
    // Tuning `boats blocking-1200` 3.27 at 49 % flat, `boats blocking-800` 4.38 at 53 %, `dune
    // blocking-1200` 3.49 at 44 %, `dune blocking-800` 3.46 at 47 %: enlarged, Enhanced gained
    // nothing over Standard and Studio Max lost colour to it.
    for (const [ratio, flat] of [
      [3.27, 0.49],
      [4.38, 0.53],
      [3.49, 0.44],
      [3.46, 0.47],
      [LIMITS.blockyRatio, LIMITS.blockyFlatShareStandard],
      [LIMITS.blockyRatio, LIMITS.blockyFlatShare - 0.01],
    ] as const) {
      for (const quality of ["enhanced", "enhanced_max"] as const) {
        const p = at(quality, ratio, flat);
        expect(p.video.scale).toBeNull();
        expect(p.video.output).toMatchObject({ width: 640, height: 480 });
        expect(p.video.deblock).toEqual(pp7);
        expect(p.encode.maxrateK).toBe(standard.encode.maxrateK);
      }
    }
    expect(at("enhanced", 3.27, 0.49).notes).toContain(
      "compression blocks on a textured picture: kept at its size, as at Standard",
    );
    // Flat blocked pictures are still enlarged (`cups blocking-1200` 3.44 at 81 %), and grain
    // (`dune grain-10-x3` 5.04 at 3 %), clean `blinds blocking-800` (1.63) or no pp7 in this
    // ffmpeg leave the size alone.
    expect(at("enhanced", 3.44, 0.81).video.scale).not.toBeNull();
    for (const quality of ["enhanced", "enhanced_max"] as const) {
      expect(at(quality, 5.04, 0.03).video.scale).not.toBeNull();
      expect(at(quality, 1.63, 0.58).video.scale).not.toBeNull();
      expect(at(quality, 3.27, 0.49, { caps: without("pp7") }).video.scale).not.toBeNull();
    }
    expect(at("enhanced", 5.04, 0.03).video.deblock).toMatchObject({ filter: "deblock" });
  });

  it("keeps a picture starved of bits (its MPEG quantiser) at its size, unless flat-blocked or grainy", () => {
    const at = (quality: RestoreQuality, over: Partial<Parameters<typeof measured>[0]>) =>
      plan(quality, { measured: measured(over) });
    const standard = at("faithful", { quantiser: 21.1 });
    // Tuning `blinds blocking-800` (I frames' quantiser 21.1, blockiness 1.63 at 58 %) and
    // `forest blocking-2000` (22.6, 2.08 at 20 %): read neither blocked nor grainy, enlarged they
    // fell under Standard (colour −0.07 dB, SSIM Y −0.003).
    for (const m of [
      {
        quantiser: 21.1,
        blockiness: { ratio: 1.63, flatShare: 0.58 },
        noise: { y: 0.37, c: 0.5 },
      },
      { quantiser: 22.6, blockiness: { ratio: 2.08, flatShare: 0.2 } },
      { quantiser: LIMITS.starvedQuantiser },
    ]) {
      for (const quality of ["enhanced", "enhanced_max"] as const) {
        const p = at(quality, m);
        expect(p.video.scale).toBeNull();
        expect(p.video.output).toMatchObject({ width: 640, height: 480 });
        expect(p.video.deblock).toEqual(standard.video.deblock);
        expect(p.encode.maxrateK).toBe(standard.encode.maxrateK);
      }
    }
    expect(at("enhanced", { quantiser: 21.1 }).notes).toContain(
      "starved of bits (MPEG quantiser 21.1): kept at its size, as at Standard",
    );
    // Clean MPEG-2 at 8–12 Mbit/s read 4.3–6.9 (`forest interlaced-tff` 6.9); grainy clips up
    // to 15.1 (`boats grain-10-x3`, σ 12.2: the grain's cost); a flat blocked one (`cups
    // blocking-1200` 26.0, 3.44 at 81 %) keeps pp7 before Enhanced's enlargement; other codecs
    // read nothing.
    for (const quality of ["enhanced", "enhanced_max"] as const) {
      expect(at(quality, { quantiser: 6.9, noise: { y: 1.31, c: 1 } }).video.scale).not.toBeNull();
      expect(at(quality, { quantiser: LIMITS.starvedQuantiser - 0.01 }).video.scale).not.toBeNull();
      expect(at(quality, { quantiser: 15.1, noise: { y: 12.2, c: 9 } }).video.scale).not.toBeNull();
      const grainy = { y: DENOISE.minLumaSigma, c: 1 };
      expect(at(quality, { quantiser: 30, noise: grainy }).video.scale).not.toBeNull();
      expect(at(quality, { quantiser: null }).video.scale).not.toBeNull();
      const flat = at(quality, { quantiser: 26, blockiness: { ratio: 3.44, flatShare: 0.81 } });
      expect(flat.video.scale).not.toBeNull();
      expect(flat.video.deblock).toEqual({ filter: "pp7", qp: LIMITS.deblockPp7Qp });
    }
    // Standard is as it was.
    expect(standard.video).toEqual(at("faithful", {}).video);
  });

  it("enlarges a flat blocked picture at Studio Max as at Enhanced, at Enhanced's rate", () => {
    const at = (quality: RestoreQuality, ratio: number, flatShare: number) =>
      plan(quality, { measured: measured({ blockiness: { ratio, flatShare } }) });
    // Tuning `cups blocking-1200` 3.44 at 81 % flat: at 1.9× and 1.5× the rate Studio Max fell
    // 0.11 / 0.12 dB under Enhanced; `fog blocking-1200` 4.52 at 79 %.
    for (const [ratio, flat] of [
      [3.44, 0.81],
      [4.52, 0.79],
      [LIMITS.blockyRatio, LIMITS.blockyFlatShare],
    ] as const) {
      const max = at("enhanced_max", ratio, flat);
      const enhanced = at("enhanced", ratio, flat);
      expect(max.video.scale).toEqual(enhanced.video.scale);
      expect(max.video.output).toEqual(enhanced.video.output);
      expect(max.video.deblock).toEqual(enhanced.video.deblock);
      expect(max.encode.maxrateK).toBe(enhanced.encode.maxrateK);
    }
    expect(at("enhanced_max", 3.44, 0.81).notes).toContain(
      "compression blocks on a flat picture: enlarged as at Enhanced",
    );
    // Elsewhere Studio Max keeps its 1080-line class and its share of bits.
    const clean = at("enhanced_max", 1.66, 0.99);
    expect(clean.video.output).toMatchObject({ height: 1080 });
    expect(clean.encode.maxrateK).toBe(
      Math.round(LIMITS.maxrateK[2][1] * LIMITS.studioMaxRateShare),
    );
  });

  it("deflickers only a picture measured to flicker", () => {
    expect(plan("faithful").video.deflicker).toBe(false);
    expect(plan("faithful", { measured: measured({ flicker: 0.25 }) }).video.deflicker).toBe(false);
    expect(plan("faithful", { measured: measured({ flicker: 3 }) }).video.deflicker).toBe(true);
  });

  it("denoises nothing below the thresholds, a plane at a time (fine texture reads below)", () => {
    const clean = measured({ noise: { y: 1.6, c: 0.3 } });
    expect(plan("enhanced", { measured: clean }).video.denoise).toEqual([]);
    expect(plan("enhanced").video.denoise).toEqual([]);
    const chromaOnly = measured({ noise: { y: 1.2, c: 4 } });
    expect(plan("faithful", { measured: chromaOnly }).video.denoise).toMatchObject([
      { lumaSpatial: 0, chromaSpatial: 11.2 },
    ]);
  });

  it("repairs tape dropouts at every quality, and invents no frames in Studio Max", () => {
    for (const q of ["faithful", "enhanced", "enhanced_max"] as const) {
      expect(plan(q).video.dropouts).toEqual({
        width: 640,
        height: 480,
        threshold: LIMITS.dropoutTopHat,
      });
    }
    expect(plan("enhanced", { caps: without("maskedmerge") }).video.dropouts).toBeNull();
    expect(plan("enhanced_max").video.output.fps).toBe(25);
  });
});

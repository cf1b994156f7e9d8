import { describe, expect, it } from "vitest";
import { coarseGain, DENOISE, decideDenoise } from "./denoise.js";
import type { Capabilities } from "./limits.js";

const all: Capabilities = { has: () => true };
const without = (name: string): Capabilities => ({ has: (f) => f !== name });

// As the probe read the tuning set's grain: fine grain (`boats grain-7`) is nearly as strong
// within a frame as between frames; grains drawn at 2 px (`forest grain-8-x2`) are not.
const fine = { y: 3.49, c: 4.43, spatialY: 2.48, spatialC: 3.77 };
const coarse = { y: 8.27, c: 9.47, spatialY: 3.12, spatialC: 3.4 };
// Grains drawn at 3 px (`boats grain-10-x3`): within a frame a sixth of the σ between frames.
const coarsest = { y: 12.22, c: 14.67, spatialY: 2.07, spatialC: 2.43 };

describe("decideDenoise", () => {
  it("takes fine grain out alike at Standard and Enhanced, and by non-local means at Studio Max", () => {
    const standard = decideDenoise(fine, "faithful", all);
    expect(standard).toEqual([
      {
        filter: "hqdn3d",
        lumaSpatial: 7.678,
        chromaSpatial: 12.404,
        lumaTemporal: 0,
        chromaTemporal: 0,
      },
    ]);
    expect(decideDenoise(fine, "enhanced", all)).toEqual(standard);
    expect(decideDenoise(fine, "enhanced_max", all)).toEqual([
      {
        filter: "nlmeans",
        strength: 3.49,
        patch: DENOISE.nlmeansPatch,
        research: 15,
        colourTemporal: DENOISE.colourTemporal,
      },
    ]);
  });

  it("evens Studio Max's colour out over frames before its non-local means, where colour grain is measured", () => {
    const [nlmeans] = decideDenoise(fine, "enhanced_max", all);
    expect(nlmeans).toMatchObject({ colourTemporal: { frames: 5, a: 0.04, b: 0.08 } });
    // No colour grain read: the colour is left to the non-local means alone.
    const [lumaOnly] = decideDenoise({ ...fine, c: 0.5 }, "enhanced_max", all);
    expect(lumaOnly).toMatchObject({ filter: "nlmeans" });
    expect(lumaOnly).not.toHaveProperty("colourTemporal");
    // An ffmpeg without atadenoise runs the non-local means as before.
    const [bare] = decideDenoise(fine, "enhanced_max", without("atadenoise"));
    expect(bare).not.toHaveProperty("colourTemporal");
    // Coarse grain too, after hqdn3d's colour; Standard and Enhanced never.
    const [, coarseNl] = decideDenoise(coarse, "enhanced_max", all);
    expect(coarseNl).toMatchObject({ colourTemporal: DENOISE.colourTemporal });
    for (const q of ["faithful", "enhanced"] as const) {
      expect(JSON.stringify(decideDenoise(fine, q, all))).not.toContain("colourTemporal");
    }
  });

  it("takes coarse grain's colour out harder at Enhanced than at Standard", () => {
    const [standard] = decideDenoise(coarse, "faithful", all);
    const [enhanced] = decideDenoise(coarse, "enhanced", all);
    if (standard?.filter !== "hqdn3d" || enhanced?.filter !== "hqdn3d") {
      throw new Error("hqdn3d expected at Standard and Enhanced");
    }
    expect(standard.chromaSpatial).toBeCloseTo(2.8 * coarse.c, 2);
    expect(enhanced.chromaSpatial).toBeCloseTo(DENOISE.coarseChromaPerSigma * coarse.c, 2);
    expect(enhanced.chromaSpatial).toBeGreaterThan(standard.chromaSpatial);
    expect(enhanced.lumaSpatial).toBe(standard.lumaSpatial);
    // Heavier coarse grain stops at its own cap.
    const [heavy] = decideDenoise({ ...coarse, c: 15 }, "enhanced", all);
    expect(heavy).toMatchObject({ chromaSpatial: DENOISE.maxChromaCoarse });
  });

  it("takes coarse grain out at Studio Max by colour by hqdn3d, then non-local means on larger patches", () => {
    const [colour, nlmeans] = decideDenoise(coarse, "enhanced_max", all);
    expect(nlmeans).toEqual({
      filter: "nlmeans",
      strength: coarse.y,
      patch: DENOISE.nlmeansCoarsePatch,
      research: DENOISE.nlmeansResearch,
      colourTemporal: DENOISE.colourTemporal,
    });
    expect(DENOISE.nlmeansCoarsePatch).toBeGreaterThan(DENOISE.nlmeansPatch);
    expect(colour).toMatchObject({ filter: "hqdn3d", lumaSpatial: 0, lumaTemporal: 0 });
    // Without hqdn3d the non-local means still runs alone; without nlmeans, hqdn3d does both.
    expect(decideDenoise(coarse, "enhanced_max", without("hqdn3d"))).toEqual([nlmeans]);
    expect(decideDenoise(coarse, "enhanced_max", without("nlmeans"))).toEqual(
      decideDenoise(coarse, "enhanced", all),
    );
  });

  it("takes 3-px grain out at Studio Max by a stronger non-local means than 2-px grain", () => {
    const [, nlmeans] = decideDenoise(coarsest, "enhanced_max", all);
    expect(nlmeans).toEqual({
      filter: "nlmeans",
      strength: 19.552,
      patch: DENOISE.nlmeansCoarsePatch,
      research: DENOISE.nlmeansResearch,
      colourTemporal: DENOISE.colourTemporal,
    });
    // Enhanced and Standard are as they were: hqdn3d, at its own cap.
    expect(decideDenoise(coarsest, "enhanced", all)).toMatchObject([{ lumaSpatial: 14 }]);
    // A size between 2 and 3 px (the ratio between theirs) gets a strength in between.
    const between = { ...coarsest, spatialY: 0.24 * coarsest.y };
    const [, mid] = decideDenoise(between, "enhanced_max", all);
    expect(mid).toMatchObject({ filter: "nlmeans", strength: 15.886 });
    // Heavier grain: 1.6 × the luma cap (14), under ffmpeg's largest strength (30).
    const [, heavy] = decideDenoise({ ...coarsest, y: 20, spatialY: 3 }, "enhanced_max", all);
    expect(heavy).toMatchObject({ strength: 22.4 });
  });

  it("reads the grain's size from the within-frame σ against the between-frame one", () => {
    expect(coarseGain(3.12, 8.27)).toBe(1); // 2-px grain on the forest floor: 0.38
    expect(coarseGain(1.72, 5.53)).toBe(1); // 2-px grain on a tape (`dune tape-b`): 0.311
    expect(coarseGain(2.07, 12.22)).toBe(DENOISE.nlmeansCoarsest); // 3-px grain: 0.169
    expect(coarseGain(1.2, 12)).toBe(DENOISE.nlmeansCoarsest); // coarser still: no stronger
    expect(coarseGain(0.24, 1)).toBeCloseTo(1.3, 6);
    expect(coarseGain(0.2, 1)).toBeGreaterThan(coarseGain(0.28, 1));
  });

  it("does not call a plane coarse without a within-frame reading, nor colour noise alone", () => {
    const unread = { y: coarse.y, c: coarse.c };
    expect(decideDenoise(unread, "enhanced", all)).toEqual(decideDenoise(unread, "faithful", all));
    const colourOnly = { y: 1.2, c: 4, spatialY: 0.3, spatialC: 3.6 };
    expect(decideDenoise(colourOnly, "enhanced", all)).toMatchObject([
      { lumaSpatial: 0, chromaSpatial: 11.2 },
    ]);
  });

  it("averages Studio Max's luma along the motion on coarse grain and tape, not on fine grain", () => {
    // As the probe read the tuning set: `storm grain-4` (fine, colour/luma 1.66), `boats tape-a`
    // (fine within a frame, but its colour 1.81× its luma), `dune tape-b` (2-px grain).
    const storm = { y: 2.08, c: 3.46, spatialY: 1.73, spatialC: 3.5 };
    const tapeA = { y: 3.19, c: 5.77, spatialY: 2.45, spatialC: 5.77 };
    const tapeB = { y: 5.54, c: 8.17, spatialY: 1.72, spatialC: 2.88 };
    const averaged = (noise: typeof fine, averageable = true) =>
      decideDenoise(noise, "enhanced_max", all, [], averageable).some(
        (d) => d.filter === "nlmeans" && d.motionAverage,
      );
    for (const grain of [coarse, coarsest, tapeA, tapeB]) expect(averaged(grain)).toBe(true);
    for (const grain of [fine, storm]) expect(averaged(grain)).toBe(false);
    const notes: string[] = [];
    const [, nl] = decideDenoise(coarsest, "enhanced_max", all, notes, true);
    expect(nl).toMatchObject({ motionAverage: DENOISE.motionAverage });
    expect(notes.join("\n")).toMatch(/averaged along the motion/);
    // Not where the picture cannot take it (plan.ts: no known rate, odd size), nor below Studio
    // Max, nor without the filters that stack the guide under the picture.
    expect(averaged(coarsest, false)).toBe(false);
    for (const q of ["faithful", "enhanced"] as const) {
      expect(JSON.stringify(decideDenoise(coarsest, q, all, [], true))).not.toContain(
        "motionAverage",
      );
    }
    const noStack = decideDenoise(coarsest, "enhanced_max", without("vstack"), [], true);
    expect(JSON.stringify(noStack)).not.toContain("motionAverage");
  });
});

import { describe, expect, it } from "vitest";
import { DENOISE, decideDenoise } from "./denoise.js";
import type { Capabilities } from "./limits.js";

const all: Capabilities = { has: () => true };
const without = (name: string): Capabilities => ({ has: (f) => f !== name });

// As the probe read the tuning set's grain: fine grain (`boats grain-7`) is nearly as strong
// within a frame as between frames; grains drawn at 2 px (`forest grain-8-x2`) are not.
const fine = { y: 3.49, c: 4.43, spatialY: 2.48, spatialC: 3.77 };
const coarse = { y: 8.27, c: 9.47, spatialY: 3.12, spatialC: 3.4 };

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
      { filter: "nlmeans", strength: 3.49, patch: DENOISE.nlmeansPatch, research: 15 },
    ]);
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
    });
    expect(DENOISE.nlmeansCoarsePatch).toBeGreaterThan(DENOISE.nlmeansPatch);
    expect(colour).toMatchObject({ filter: "hqdn3d", lumaSpatial: 0, lumaTemporal: 0 });
    // Without hqdn3d the non-local means still runs alone; without nlmeans, hqdn3d does both.
    expect(decideDenoise(coarse, "enhanced_max", without("hqdn3d"))).toEqual([nlmeans]);
    expect(decideDenoise(coarse, "enhanced_max", without("nlmeans"))).toEqual(
      decideDenoise(coarse, "enhanced", all),
    );
  });

  it("does not call a plane coarse without a within-frame reading, nor colour noise alone", () => {
    const unread = { y: coarse.y, c: coarse.c };
    expect(decideDenoise(unread, "enhanced", all)).toEqual(decideDenoise(unread, "faithful", all));
    const colourOnly = { y: 1.2, c: 4, spatialY: 0.3, spatialC: 3.6 };
    expect(decideDenoise(colourOnly, "enhanced", all)).toMatchObject([
      { lumaSpatial: 0, chromaSpatial: 11.2 },
    ]);
  });
});

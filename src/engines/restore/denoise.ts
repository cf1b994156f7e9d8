/**
 * How much grain to take out, from the noise the probe measured between consecutive frames after
 * motion compensation (temporal-noise.ts): fine texture that moves with the picture matches
 * itself from frame to frame and reads low, grain does not match and reads its σ. Below a
 * threshold nothing is denoised at all: a pass on clean footage only softens it (clean forest
 * lost 0.47 dB and 0.03 SSIM to the spatial σ 2.0 it used to read there). Grain is everywhere
 * alike; texture leaves flat places quiet: the quietest blocks tell them apart. Pure.
 */
import type { Capabilities } from "./limits.js";
import type { Denoise, Measurements, RestoreQuality } from "./types.js";

/**
 * The thresholds and strengths, chosen on the quality bench's tuning set (3 s clips, MPEG-2 as
 * uploaded; temporal σ at the 3rd percentile of blocks, frame-analysis.ts; 8-bit codes, one
 * field at full size):
 * - luma: clean clips read 0.0–1.6 (fine texture and its coding noise: forest 1.59, interlaced
 *   forest 1.31; boats 0.33); grain read 2.08 (σ 4 under MPEG-2), 2.8–3.5 (σ 6–7, tape).
 * - chroma: clean 0.0–0.35, grain 3.5–9.9.
 * - strengths per σ: hqdn3d's spatial luma scored best at 1.7–2.3× σ (σ 3.49: 6 of 2–8; σ 6:
 *   ≥ 12 of 6–12), chroma at 2.6–3.2× (σ 6.0: 16 of 8–24; σ 9.9: 32 of 12–32).
 */
export const DENOISE = {
  /**
   * Studio Max on fine grain: non-local means at strength nlmeansPerSigma × σ (luma), which beat
   * hqdn3d by 0.3–3.3 dB of luma PSNR on the tuning set's fine grain (σ 2–6 between frames; 0.8σ
   * to 1.6σ tried, 1.0σ best on colour) at ≈ 10× its cost. On coarse grain (drawn at 2 px:
   * within-frame σ under 0.6 of the between-frame one) it lost 0.13 dB: hqdn3d stays there.
   */
  nlmeansPerSigma: 1,
  coarseGrain: 0.6,
  minLumaSigma: 1.85,
  minChromaSigma: 1,
  lumaPerSigma: 2.2,
  chromaPerSigma: 2.8,
  maxLuma: 14,
  maxChroma: 32,
} as const;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Spatial denoise (hqdn3d, no temporal part: it smears pans) scaled to the measured noise, the
 * same at Standard and Enhanced; Studio Max takes fine grain out with non-local means. None on a
 * plane whose noise is below its threshold, or when it is unmeasured.
 */
export function decideDenoise(
  noise: Measurements["noise"],
  quality: RestoreQuality,
  caps: Capabilities,
  notes: string[] = [],
): Denoise[] {
  if (!noise) {
    notes.push("noise unmeasured → no denoise");
    return [];
  }
  const measured = `noise σ Y ${noise.y}, C ${noise.c} between frames${
    noise.spatialY !== undefined ? ` (within a frame ${noise.spatialY}, ${noise.spatialC})` : ""
  }`;
  const strength = (sigma: number, min: number, perSigma: number, max: number) =>
    sigma < min ? 0 : round3(Math.min(max, sigma * perSigma));
  const luma = strength(noise.y, DENOISE.minLumaSigma, DENOISE.lumaPerSigma, DENOISE.maxLuma);
  const chroma = strength(
    noise.c,
    DENOISE.minChromaSigma,
    DENOISE.chromaPerSigma,
    DENOISE.maxChroma,
  );
  const fine = noise.spatialY === undefined || noise.spatialY >= DENOISE.coarseGrain * noise.y;
  if (quality === "enhanced_max" && luma > 0 && fine && caps.has("nlmeans")) {
    const strength = round3(Math.min(DENOISE.maxLuma, noise.y * DENOISE.nlmeansPerSigma));
    notes.push(`${measured} → non-local means ${strength}`);
    return [{ filter: "nlmeans", strength, patch: 7, research: 15 }];
  }
  if (!caps.has("hqdn3d") || (luma === 0 && chroma === 0)) {
    notes.push(`${measured} → no denoise`);
    return [];
  }
  notes.push(`${measured} → spatial denoise Y ${luma}, C ${chroma}`);
  return [
    {
      filter: "hqdn3d",
      lumaSpatial: luma,
      chromaSpatial: chroma,
      lumaTemporal: 0,
      chromaTemporal: 0,
    },
  ];
}

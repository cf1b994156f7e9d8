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
   * to 1.6σ tried, 1.0σ best on colour) at ≈ 10× its cost, comparing patches of nlmeansPatch px.
   */
  nlmeansPerSigma: 1,
  nlmeansPatch: 7,
  nlmeansResearch: 15,
  /**
   * Coarse grain: within-frame σ under coarseGrain × the between-frame one (grains drawn at 2–3
   * px). Studio Max compares patches of nlmeansCoarsePatch px there (tuning `forest grain-8-x2`,
   * σ 8.3: luma PSNR 27.19 at 7 px, 27.85 at 11, against hqdn3d's 27.70; SSIM 0.575, 0.671,
   * 0.651), after hqdn3d has taken out its colour.
   */
  coarseGrain: 0.6,
  nlmeansCoarsePatch: 11,
  /**
   * Coarser grain needs a stronger non-local means. ffmpeg's nlmeans weighs a patch by
   * exp(−d / (10 s)²), d the squared differences summed over the whole patch; on 3-px grain an
   * 11-px patch holds only ≈ 13 grains, so d between two patches of the same picture scatters
   * widely and few of them get weight at s = σ. The grain's size is read from the ratio of the
   * within-frame σ to the between-frame one (the within-frame measure sees only the finest
   * detail): on the tuning set 2-px grain reads 0.31–0.38 (`dune tape-b`, `forest grain-8-x2`),
   * 3-px grain 0.16–0.17 (`boats`, `dune grain-10-x3`). From coarseRatio2px down to
   * coarseRatio3px the strength rises linearly from σ to nlmeansCoarsest × σ (sizes in
   * between get strengths in between). Tuning set, luma PSNR on the first 30 frames at the
   * delivered size before the encode, 11-px patches, s = 1.0σ / 1.3σ / 1.6σ / 2.0σ: `boats
   * grain-10-x3` 25.07 / 25.69 / 25.65 / 25.06 (1.45σ: 25.75), `dune grain-10-x3` 26.92 / 28.36
   * / 28.79 / 28.54; on 2-px grain 1.3σ and 1.57σ lost (`forest grain-8-x2` 27.60 → 27.51,
   * 27.03; `dune tape-b` 24.89 → 24.83, 24.68).
   */
  coarseRatio2px: 0.31,
  coarseRatio3px: 0.17,
  nlmeansCoarsest: 1.6,
  /**
   * Studio Max, where it measures colour grain: before its non-local means the colour planes are
   * averaged over colourTemporal.frames frames where they differ by less than a / b of the range
   * (ffmpeg's atadenoise, colour only: a pixel whose colour moved by more, an edge passing, keeps
   * its own). Non-local means has one strength for every plane, set by the luma's σ, and left
   * smooth pictures' colour grain in (tuning `storm grain-4`: colour 0.17 dB under Enhanced's
   * hqdn3d). Chosen on the tuning set (the plan by hand, each cell's first second, colour PSNR):
   * at 0.08 / 0.16 `storm grain-4` 47.21 → 48.55 but `cups grain-10` 40.56 → 40.22 and `boats
   * grain-7` 40.69 → 40.53 (colour detail averaged away); at 0.04 / 0.08 storm 48.23, cups 40.55,
   * boats 40.70, `forest grain-8-x2` 38.51 → 38.69, `storm dropouts-grain` 46.77 → 46.84; at
   * 0.02 / 0.04 storm 47.40. Luma within ±0.05 everywhere. Bench (3 s, colour before → after):
   * tuning storm 47.15 → 48.25 (its break gone), `boats grain-10-x3` 34.17 → 34.47, `forest
   * grain-10-x3` 35.51 → 35.94, cups 40.78 → 40.77, boats 40.84 → 40.81; held out `wood
   * dropouts-grain` 43.65 → 44.62 (its break against Enhanced's 43.92 gone), `lake grain-4`
   * 48.78 → 50.73 (docs/restore.md, "Studio Max per frame"). ≈ 0.01 s of CPU per second of SD.
   */
  colourTemporal: { frames: 5, a: 0.04, b: 0.08 },
  /**
   * Studio Max on coarse grain and tape-like colour noise: the luma averaged along the motion
   * over five frames, then non-local means again at `final` × its strength (motion-average.ts).
   * Measured outside the engine on the tuning set (docs/restore.md, "A motion-following
   * average"; luma at SD over non-local means alone): `boats grain-10-x3` +1.64, `dune
   * grain-10-x3` +1.44 (0.6×: +1.69), `forest grain-10-x3` +0.35, `dune tape-b` +0.36, `boats
   * tape-a` +0.15. threshold: on 16 frames of boats 24 → 26.98, 40 → 27.11 dB. Gated by
   * averageWhere (below): in the bench (Studio Max's 1080p output) fine grain lost.
   */
  motionAverage: { threshold: 40, final: 0.4 },
  /**
   * Where the motion average runs: on coarse grain (the `coarse` reading, within-frame σ under
   * coarseGrain × the between-frame one) or where the colour's σ between frames is at least
   * colourRatio × the luma's (tape: its colour noisier than its luma). Chosen on the tuning set
   * (bench, 3 s, Studio Max luma PSNR with the average → without): fine grain lost, `boats
   * grain-7` (within/between 0.71, colour/luma 1.27) 31.36 → 31.61; coarse grain and tape gained,
   * `boats`, `dune`, `forest grain-10-x3` (0.16–0.20) +1.15, +1.12, +0.26, `dune tape-b` (0.31)
   * +3.12, `boats tape-a` (0.77, colour/luma 1.81) +0.43. Colour/luma on the tuning set's fine
   * grain 1.02–1.66 (`cups grain-10` 1.02, `storm grain-4` 1.66), on its tape 1.47–1.81, grainy
   * dropouts 1.84: 1.73 lies between fine grain's highest and `boats tape-a`.
   */
  averageWhere: { colourRatio: 1.73 },
  /** ffmpeg's largest nlmeans strength. */
  nlmeansMax: 30,
  /**
   * Coarse grain's colour at Enhanced and Studio Max: coarseChromaPerSigma × σ up to
   * maxChromaCoarse. Their larger picture at a capped bitrate keeps more of what is left of a
   * coarse grain than Standard's SD does (uncapped, Enhanced lost 1.2 dB of colour PSNR on
   * `forest grain-8-x2`), and 2.8σ left Enhanced's colour under Standard's there (36.45 dB /
   * SSIM 0.865 against 36.60 / 0.870). Enhanced on the tuning set's two coarse cells, colour PSNR
   * at 2.8σ / 3.0σ / 3.4σ / 4.2σ: forest 36.45 / 36.70 / 36.98 / 36.98, `dune tape-b` (bled,
   * faded tape; Standard 25.90) 25.91 / 25.86 / 25.75 / 25.51: 3.0σ is the most that keeps both
   * at Standard's. Past 40 the forest lost again (50: 36.53).
   */
  coarseChromaPerSigma: 3,
  maxChromaCoarse: 40,
  /**
   * x264's CRF where the plan takes grain out of the luma (hqdn3d or non-local means; elsewhere
   * LIMITS.crf, 16): what the denoiser leaves is grain, and a finer quantiser only spends bits
   * keeping it. Tuning set (bench, 2026-11-30, 6c1f99c → this, luma / colour PSNR), Standard:
   * `storm grain-4` 46.32 / 46.44 → 46.51 / 46.65, `storm dropouts-grain` 43.52 / 44.05 → 43.96
   * / 44.33, `cups grain-10` 36.47 → 36.54 (SSIM Y −0.0016); Enhanced: storm 46.49 / 47.18 →
   * 46.81 / 47.32, storm dropouts-grain 43.56 / 45.33 → 44.12 / 45.56, cups 36.63 → 36.68 (SSIM
   * Y −0.0012); Studio Max: storm 47.50 / 47.01 → 47.48 / 47.15, storm dropouts-grain 45.73 /
   * 47.01 → 45.82 / 46.98, cups 38.97 / 40.76 → 39.04 / 40.78, at two thirds of the bits. Where
   * the encode sits at its rate cap it changes little: `boats grain-7` Standard 30.77 → 30.71
   * (30.69 at 16 on a second run: runs there differ by 0.08), the 2-px, 3-px grain and tape
   * cells within ±0.04 (SSIM Y −0.002 at most). No tuning ladder break came. Held out:
   * `planks grain-7` Standard 34.64 → 34.91 against the floor's 34.76 (docs/restore.md).
   */
  crfDenoised: 18,
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
 * same at Standard and Enhanced but for coarse grain's colour, which the enhanced qualities take
 * out harder; Studio Max takes grain out with non-local means (on coarse grain with larger
 * patches, and hqdn3d for its colour), its colour first evened out over a few frames where
 * colour grain is measured. None on a plane whose noise is below its threshold, or when it is
 * unmeasured.
 */
export function decideDenoise(
  noise: Measurements["noise"],
  quality: RestoreQuality,
  caps: Capabilities,
  notes: string[] = [],
  /** Whether the picture can take the motion average (plan.ts: a known rate, even size). */
  averageable = false,
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
  const coarse =
    luma > 0 && noise.spatialY !== undefined && noise.spatialY < DENOISE.coarseGrain * noise.y;
  const enhanced = quality !== "faithful";
  const chroma =
    coarse && enhanced
      ? strength(
          noise.c,
          DENOISE.minChromaSigma,
          DENOISE.coarseChromaPerSigma,
          DENOISE.maxChromaCoarse,
        )
      : strength(noise.c, DENOISE.minChromaSigma, DENOISE.chromaPerSigma, DENOISE.maxChroma);
  if (quality === "enhanced_max" && luma > 0 && caps.has("nlmeans")) {
    const gain = coarse ? coarseGain(noise.spatialY ?? noise.y, noise.y) : 1;
    const strength = round3(
      Math.min(
        DENOISE.nlmeansMax,
        gain * Math.min(DENOISE.maxLuma, noise.y * DENOISE.nlmeansPerSigma),
      ),
    );
    const patch = coarse ? DENOISE.nlmeansCoarsePatch : DENOISE.nlmeansPatch;
    const temporal = chroma > 0 && caps.has("atadenoise");
    const evened = temporal
      ? `; colour first evened out over ${DENOISE.colourTemporal.frames} frames`
      : "";
    const average =
      averageable &&
      (coarse || noise.c >= DENOISE.averageWhere.colourRatio * noise.y) &&
      ["extractplanes", "mergeplanes", "vstack"].every((f) => caps.has(f));
    const nlmeans: Denoise = {
      filter: "nlmeans",
      strength,
      patch,
      research: DENOISE.nlmeansResearch,
      ...(temporal ? { colourTemporal: DENOISE.colourTemporal } : {}),
      ...(average ? { motionAverage: DENOISE.motionAverage } : {}),
    };
    const averaged = average
      ? `; luma then averaged along the motion over 5 frames, and non-local means again ×${DENOISE.motionAverage.final}`
      : "";
    if (!coarse || !caps.has("hqdn3d") || chroma === 0) {
      notes.push(
        `${measured} → non-local means ${strength}, ${patch} px patches${evened}${averaged}`,
      );
      return [nlmeans];
    }
    notes.push(
      `${measured} → coarse: colour C ${chroma}, then non-local means ${strength}, ${patch} px patches${evened}${averaged}`,
    );
    // Colour first: on `forest grain-8-x2` (at 1080 lines) hqdn3d's colour before non-local
    // means scored 38.15 dB of colour PSNR, after it 36.36 (hqdn3d alone at 40: 36.75).
    return [hqdn3d(0, chroma), nlmeans];
  }
  if (!caps.has("hqdn3d") || (luma === 0 && chroma === 0)) {
    notes.push(`${measured} → no denoise`);
    return [];
  }
  notes.push(
    `${measured} → spatial denoise Y ${luma}, C ${chroma}${coarse ? " (coarse grain)" : ""}`,
  );
  return [hqdn3d(luma, chroma)];
}

/**
 * How much stronger than σ Studio Max's non-local means runs on coarse grain: 1 at 2-px grain's
 * within/between-frame ratio and above, DENOISE.nlmeansCoarsest at 3-px grain's and below,
 * linear in between.
 */
export function coarseGain(spatialSigma: number, temporalSigma: number): number {
  const { coarseRatio2px: r2, coarseRatio3px: r3, nlmeansCoarsest: top } = DENOISE;
  const ratio = spatialSigma / temporalSigma;
  const t = Math.min(1, Math.max(0, (r2 - ratio) / (r2 - r3)));
  return 1 + t * (top - 1);
}

/** hqdn3d with no temporal part. */
const hqdn3d = (lumaSpatial: number, chromaSpatial: number): Denoise => ({
  filter: "hqdn3d",
  lumaSpatial,
  chromaSpatial,
  lumaTemporal: 0,
  chromaTemporal: 0,
});

/**
 * x264's CRF for a plan: DENOISE.crfDenoised where it takes grain out of the luma (hqdn3d with a
 * luma strength, or non-local means), else `crf`.
 */
export function encodeCrf(denoise: Denoise[], crf: number): number {
  const luma = denoise.some((d) => d.filter === "nlmeans" || d.lumaSpatial > 0);
  return luma ? DENOISE.crfDenoised : crf;
}

/**
 * Whether hqdn3d takes grain out: its colour planes then carry the colour grain it leaves, which
 * the scale brings to 4:4:4 bilinearly (chain.ts scaleFilter) and Enhanced's deblock thresholds
 * on the source's grid (blocks-plan.ts decideDeblock). Non-local means alone leaves less.
 */
export function leavesColourGrain(denoise: readonly Denoise[]): boolean {
  return denoise.some((d) => d.filter === "hqdn3d");
}

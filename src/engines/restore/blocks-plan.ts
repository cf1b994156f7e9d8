/**
 * What a picture the probe reads as starved of bits into compression blocks (blockiness.ts)
 * gets: the size it is delivered at (sizeQuality) and its deblocking (decideDeblock). Pure;
 * plan.ts composes them with the other decisions, and its sharpening asks readsBlocks too.
 */
import { DENOISE } from "./denoise.js";
import { type Capabilities, LIMITS } from "./limits.js";
import type { Measurements, RestoreQuality, VideoPlan } from "./types.js";

/**
 * Whose size a picture read blocked, or starved of bits, is delivered at. A starved picture's
 * blocks gain nothing from being enlarged, and the larger encode lost to the smaller one on the
 * tuning set, so each quality starts from the one below it there and adds only what gained
 * (docs/restore.md, "Blocking: the ladder by construction"). Textured (Standard's pp7, under
 * LIMITS.blockyFlatShare): kept at its size at every quality, deblocked as at Standard — tuning
 * Enhanced enlarged 1.25× against Standard within ±0.04 dB on `boats` and `dune`, Studio Max's
 * 1.9× 0.04–0.10 dB of colour under it. Flat (pp7 at Enhanced): Studio Max at Enhanced's size
 * and rate — its 1.9× fell 0.11 / 0.12 dB under Enhanced on `cups blocking-1200`. Starved
 * (its MPEG-1/2 I frames' quantiser ≥ LIMITS.starvedQuantiser, quantiser.ts) but read neither blocked nor
 * grainy: kept at its size too — its blocks are too faint for the blockiness measure, and
 * enlarged they broke the ladder on both such tuning cells (`blinds blocking-800`, `forest
 * blocking-2000`): x264's in-loop filter evens them out at SD, on the source's grid, and not
 * after the scale (docs/restore.md, "Blocking: starved pictures read by their quantiser").
 */
export function sizeQuality(
  quality: RestoreQuality,
  measured: Pick<Measurements, "blockiness" | "quantiser" | "noise">,
  caps: Capabilities,
  notes: string[],
): RestoreQuality {
  if (quality === "faithful") return quality;
  const { blockiness } = measured;
  const flatBlocked = caps.has("pp7") && readsBlocks(blockiness, LIMITS.blockyFlatShare);
  if (!flatBlocked && starved(measured)) {
    notes.push(
      `starved of bits (MPEG quantiser ${measured.quantiser}): kept at its size, as at Standard`,
    );
    return "faithful";
  }
  if (!caps.has("pp7")) return quality;
  if (!readsBlocks(blockiness, LIMITS.blockyFlatShareStandard)) return quality;
  if (!flatBlocked) {
    notes.push("compression blocks on a textured picture: kept at its size, as at Standard");
    return "faithful";
  }
  if (quality !== "enhanced_max") return quality;
  notes.push("compression blocks on a flat picture: enlarged as at Enhanced");
  return "enhanced";
}

/**
 * Whether an MPEG-1/2 source was quantised as hard as a starved one (LIMITS.starvedQuantiser)
 * without grain to account for it: grain is dear to code (on the tuning set grainy clips at 15
 * Mbit/s read up to 15.1, and a coarser grain or a lower rate would read more), so a picture
 * the denoise would take grain out of (DENOISE.minLumaSigma) is not called starved by its
 * quantiser.
 */
export function starved(measured: Pick<Measurements, "quantiser" | "noise">): boolean {
  const { quantiser, noise } = measured;
  if (quantiser === null || quantiser === undefined) return false;
  if (noise && noise.y >= DENOISE.minLumaSigma) return false;
  return quantiser >= LIMITS.starvedQuantiser;
}

/**
 * Whether the probe read compression blocks (blockiness.ts: the flat places' step at the 8-px
 * grid, LIMITS.blockyRatio) on a picture with at least `minFlatShare` of its block borders flat:
 * the sharpening's gate takes grain out with a low floor, the deblock's keeps pp7 to smooth
 * pictures with a higher one.
 */
export function readsBlocks(blockiness: Measurements["blockiness"], minFlatShare: number): boolean {
  return (
    !!blockiness && blockiness.ratio >= LIMITS.blockyRatio && blockiness.flatShare >= minFlatShare
  );
}

/**
 * Enhanced evens out small steps on the source's 8-px block grid before it enlarges the
 * picture: Standard's SD encode does that in x264's in-loop filter, whose blocks lie on the
 * source's, and after the scale they no longer do (tuning `storm` clean: x264's deblocking is
 * worth 0.08 dB of luma to Standard's encode; docs/restore.md, "Blocking"). A picture the probe
 * reads as blocked (blockiness.ts: its flat places step at the grid, LIMITS.blockyRatio) and
 * mostly flat (LIMITS.blockyFlatShare: grain and texture leave few flat places, and there pp7
 * took detail) gets pp7 instead, at Studio Max too: without it Studio Max fell under Enhanced's
 * pp7 (held-out `ladybird blocking-800` 43.67 against 43.81 dB of luma; with it 44.04; tuning
 * `cups blocking-1200` 39.13 → 39.17 / 42.76 → 42.79, `fog blocking-1200` 35.25 either way).
 * Studio Max never takes the weak deblock, which was not measured with it.
 * Standard takes pp7 on every picture read blocked (LIMITS.blockyFlatShareStandard), at its own
 * size: its encode's in-loop filter left `boats` and `dune` blocking under the floor (doing
 * nothing). A picture kept at its size (HD, and a textured blocked picture: sizeQuality) is
 * deblocked as at Standard at every quality. (Enhanced's pp7 on the colour beside the weak
 * deblock's luma, `pp7-colour`, enlarged textured blocked pictures until 2026-11-30; held out
 * they fell 0.11–0.18 dB of luma under Standard: docs/restore.md.)
 * `grainy`: the plan takes grain out with hqdn3d. Standard's SD encode quantises the colour
 * grain hqdn3d leaves on the source's 8×8 grid and so evens it out (held-out `planks grain-7`,
 * lossless → encoded: Standard's colour +0.43 dB, Enhanced's 720-line encode +0.15); enlarged,
 * Enhanced's colour planes are thresholded in the DCT on that grid before the scale, by fspp
 * at LIMITS.grainColour, beside the weak deblock's luma (`fspp-colour`).
 */
export function decideDeblock(
  quality: RestoreQuality,
  scaled: boolean,
  blockiness: Measurements["blockiness"],
  caps: Capabilities,
  notes: string[],
  grainy = false,
): VideoPlan["deblock"] {
  const blockedAt = (minFlatShare: number) =>
    readsBlocks(blockiness, minFlatShare) && caps.has("pp7");
  const read = blockiness
    ? ` (block edges ${blockiness.ratio}× the picture's other steps where it is flat, ${Math.round(blockiness.flatShare * 100)} % of it flat)`
    : "";
  const pp7 = { filter: "pp7", qp: LIMITS.deblockPp7Qp } as const;
  if (quality === "faithful" || !scaled) {
    if (!blockedAt(LIMITS.blockyFlatShareStandard)) return null;
    notes.push(`compression blocks smoothed${read}`);
    return pp7;
  }
  // A textured blocked picture is not enlarged (sizeQuality): it took the branch above.
  if (blockedAt(LIMITS.blockyFlatShare)) {
    notes.push(`compression blocks smoothed before enlarging${read}`);
    return pp7;
  }
  if (quality !== "enhanced" || !caps.has("deblock")) return null;
  const weak = { alpha: LIMITS.deblockAlpha, beta: LIMITS.deblockBeta };
  if (grainy && caps.has("fspp")) {
    notes.push(
      `faint compression block edges and the colour grain the denoise leaves smoothed before enlarging${read}`,
    );
    return { filter: "fspp-colour", ...weak, ...LIMITS.grainColour };
  }
  notes.push(`faint compression block edges smoothed before enlarging${read}`);
  return { filter: "deblock", ...weak };
}

/**
 * Where a preview looks: the few seconds of the video the analysis finds most damaged. Each
 * candidate window is measured by the restore engine's own analysis (noise between frames,
 * combing, the levels' veil, the colour's slip, flicker, blur); each measure is scaled by the
 * engine's threshold for acting on it, so a window's score says how far past "worth repairing"
 * it is, summed over the damages. Pure.
 */
import { LIMITS, type Measurements } from "../../../engines/restore/index.js";
import { DENOISE } from "../../../engines/restore/plan.js";
import { isFaded } from "../../../engines/restore/tone.js";

/** What the analysis of one window gave (the engine's video measurements). */
export type WindowReading = Pick<
  Measurements,
  "interlace" | "levels" | "noise" | "chromaShift" | "flicker" | "blur"
>;

/** Share of the decided idet frames that were combed; 0 when nothing was decided. */
function combedShare(counts: Measurements["interlace"]): number {
  if (!counts) return 0;
  const decided = counts.tff + counts.bff + counts.progressive;
  return decided > 0 ? (counts.tff + counts.bff) / decided : 0;
}

/** Each damage found in a window, with how far past the engine's threshold it is (1 = at it). */
export function damages(r: WindowReading): { what: string; score: number }[] {
  const out: { what: string; score: number }[] = [];
  const combed = combedShare(r.interlace);
  if (combed > 0) {
    out.push({
      what: `interlaced (${Math.round(combed * 100)} % of frames combed)`,
      score: combed / LIMITS.interlacedShare,
    });
  }
  const noise = r.noise?.y ?? 0;
  if (noise > 0)
    out.push({ what: `grain σ ${noise.toFixed(1)}`, score: noise / DENOISE.minLumaSigma });
  if (r.levels && isFaded(r.levels)) {
    out.push({
      what: `faded (blacks at ${Math.round(r.levels.dark)})`,
      score: r.levels.dark / LIMITS.fadeVeil,
    });
  }
  const slip = Math.abs(r.chromaShift ?? 0);
  if (slip > 0) out.push({ what: `colour slipped ${slip} px`, score: slip / 2 });
  const flicker = r.flicker ?? 0;
  if (flicker > 0)
    out.push({ what: `flicker ${flicker.toFixed(1)}`, score: flicker / LIMITS.flickerCodes });
  const blur = r.blur ?? 0;
  if (blur > 0)
    out.push({ what: `soft (blur σ ${blur.toFixed(2)} px)`, score: blur / LIMITS.sharpenBlur });
  return out;
}

/** A window's damage: the sum of its damages' scores. */
export function damageScore(r: WindowReading): number {
  return damages(r).reduce((sum, d) => sum + d.score, 0);
}

/** What was found in a window, worst first, in words (only what is past its threshold). */
export function foundWords(r: WindowReading): string[] {
  const past = damages(r)
    .filter((d) => d.score >= 1)
    .sort((a, b) => b.score - a.score);
  return past.length > 0 ? past.map((d) => d.what) : ["no damage past the engine's thresholds"];
}

/**
 * Where the candidate windows of `lengthSec` start in a video of `durationSec`: the whole video
 * when it is no longer than one window, else up to `count` evenly spaced, first and last
 * included.
 */
export function candidateStarts(durationSec: number, lengthSec: number, count: number): number[] {
  const last = durationSec - lengthSec;
  if (last <= 0) return [0];
  const n = Math.max(2, count);
  const starts = Array.from(
    { length: n },
    (_, i) => Math.round((last * i * 1000) / (n - 1)) / 1000,
  );
  return [...new Set(starts)];
}

/** The index of the most damaged reading (the first on a tie). */
export function worstIndex(readings: readonly WindowReading[]): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  readings.forEach((r, i) => {
    const s = damageScore(r);
    if (s > bestScore) {
      best = i;
      bestScore = s;
    }
  });
  return best;
}

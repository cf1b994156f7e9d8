/**
 * Where the probe looks: a bounded set of evenly spaced excerpts instead of the whole file, so
 * the analysis costs a small share of the restore however long the video is. Pure.
 *
 * Placement: the first excerpt starts at 0 and the last one ends at the end of the file, the
 * rest evenly between. A defect that spans the file is in every excerpt; one that covers any
 * stretch of at least `spacing + seconds` (see `guaranteedSpanSec`) fully contains an excerpt.
 */

import { at } from "../../domain/checked-index.js";
import type { Sample } from "./types.js";

export type { Sample };

export interface SamplingOptions {
  /** Share of the file's length the video analysis decodes, in total over all excerpts. */
  share: number;
  /** Bounds of that total, in seconds: enough frames on short files, bounded on long ones. */
  minTotalSec: number;
  maxTotalSec: number;
  /** One excerpt per this many seconds of file, within [minSamples, maxSamples]. */
  spacingSec: number;
  minSamples: number;
  maxSamples: number;
  /** No excerpt is shorter than this (idet settles after ~4 frames; hum needs 1 s blocks). */
  minSampleSec: number;
}

export const DEFAULT_SAMPLING: SamplingOptions = {
  share: 0.12,
  minTotalSec: 1.5,
  maxTotalSec: 60,
  spacingSec: 60,
  minSamples: 3,
  maxSamples: 12,
  minSampleSec: 0.5,
};

/** Excerpts this close to covering the whole file are replaced by the whole file. */
const WHOLE_FILE_SHARE = 0.8;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Seconds as the analyses write them in ffmpeg arguments and filter options: to the ms. */
export const secondsText = (x: number): string => String(round3(x));

/**
 * `count` excerpts of `seconds` each, evenly spaced from the start to the end of a file of
 * `durationSec`; the whole file as one excerpt when they would cover most of it anyway.
 */
export function evenSamples(durationSec: number, count: number, seconds: number): Sample[] {
  if (count <= 1 || count * seconds >= WHOLE_FILE_SHARE * durationSec) {
    return [{ startSec: 0, seconds: round3(durationSec) }];
  }
  const step = (durationSec - seconds) / (count - 1);
  return Array.from({ length: count }, (_, i) => ({
    startSec: round3(i * step),
    seconds: round3(seconds),
  }));
}

/** How many excerpts, and how long each, for a file of `durationSec`. */
export function sampleShape(
  durationSec: number,
  opts: SamplingOptions = DEFAULT_SAMPLING,
  minSampleSec = opts.minSampleSec,
): { count: number; seconds: number } {
  const total = Math.min(opts.maxTotalSec, Math.max(opts.minTotalSec, opts.share * durationSec));
  const wanted = Math.ceil(durationSec / opts.spacingSec);
  const count = Math.min(opts.maxSamples, Math.max(opts.minSamples, wanted));
  return { count, seconds: Math.max(minSampleSec, opts.minSampleSec, total / count) };
}

/**
 * The excerpts the video analysis decodes. Without a known length (no header duration) it
 * reads the first `maxTotalSec` in one piece, as the probe always did.
 */
export function planSamples(
  durationSec: number | null,
  opts: SamplingOptions = DEFAULT_SAMPLING,
  minSampleSec = opts.minSampleSec,
): Sample[] {
  if (durationSec === null || !(durationSec > 0)) {
    return [{ startSec: 0, seconds: opts.maxTotalSec }];
  }
  const { count, seconds } = sampleShape(durationSec, opts, minSampleSec);
  return evenSamples(durationSec, count, seconds);
}

/** The shortest stretch of a defect that always contains one whole excerpt. */
export function guaranteedSpanSec(samples: Sample[], durationSec: number): number {
  if (samples.length <= 1) return 0;
  const first = at(samples, 0);
  const second = at(samples, 1);
  return Math.min(durationSec, second.startSec - first.startSec + first.seconds);
}

/** Seconds of media the excerpts cover in total. */
export function sampledSeconds(samples: Sample[]): number {
  return round3(samples.reduce((sum, s) => sum + s.seconds, 0));
}

/** Excerpts move back to the keyframe before them by at most this much (and half a spacing). */
export const MAX_KEYFRAME_SHIFT_SEC = 2;

/** How the video analysis reads its excerpts: by seeking to each, or straight through. */
export interface ReadPlan {
  mode: "seek" | "through";
  /** Where the excerpts really are: moved back onto a keyframe when one is close before. */
  samples: Sample[];
}

/**
 * How far `planReads` moves an excerpt of `samples` back onto the keyframe before it: at most
 * MAX_KEYFRAME_SHIFT_SEC, and half the spacing (so excerpts never swap places).
 */
export function keyframeShiftSec(samples: Sample[]): number {
  if (samples.length <= 1) return MAX_KEYFRAME_SHIFT_SEC;
  const step = (at(samples, 1).startSec - at(samples, 0).startSec) / 2;
  return Math.min(MAX_KEYFRAME_SHIFT_SEC, step);
}

/**
 * Seeking decodes from the keyframe before each excerpt. When that keyframe is close (within
 * MAX_KEYFRAME_SHIFT_SEC and half the spacing), the excerpt starts there instead and costs
 * only its own length; otherwise the seek pays for the lead. When the seeks would decode more
 * than reading straight to the end of the last excerpt (long GOPs), read straight through.
 * `landings[i]` is where a seek to `samples[i]` lands; null: unknown, assume the file's start.
 */
export function planReads(samples: Sample[], landings: Array<number | null> | null): ReadPlan {
  const last = samples.at(-1);
  if (!last || samples.length <= 1) return { mode: "seek", samples };
  const maxShift = keyframeShiftSec(samples);
  let cost = 0;
  const placed = samples.map((s, i) => {
    const kf = landings?.[i] ?? 0;
    const lead = Math.max(0, s.startSec - kf);
    if (lead <= maxShift) {
      cost += s.seconds;
      return { startSec: round3(Math.min(s.startSec, Math.max(0, kf))), seconds: s.seconds };
    }
    cost += lead + s.seconds;
    return s;
  });
  return cost < last.startSec + last.seconds
    ? { mode: "seek", samples: placed }
    : { mode: "through", samples };
}

/**
 * Whether an analysis started before the landings were known read what `plan` reads. That run
 * reads each excerpt from the keyframe its seek lands on (`landings[i]`, as for `planReads`)
 * when that keyframe is at most `keyframeShiftSec` before it, else from its planned start (the
 * frames before it decoded and dropped): `planReads`' own rule, so it holds whenever the plan
 * seeks and every excerpt was placed alike. `starts[i]` is where the run's kept frames of
 * excerpt i start: the landing itself when it kept the lead. (The run decides on the exact
 * time, `planReads` on the one printed to 6 digits: near the limit the two may part.)
 */
export function readAsGuessed(
  samples: Sample[],
  plan: ReadPlan,
  landings: Array<number | null> | undefined,
  starts: Array<number | null> | undefined,
): boolean {
  if (plan.mode !== "seek" || !landings || !starts) return false;
  const maxShift = keyframeShiftSec(samples);
  return samples.every((s, i) => {
    const kf = landings[i];
    if (typeof kf !== "number") return false;
    if (s.startSec <= 0) return true;
    const from = starts[i];
    return typeof from === "number" && s.startSec - kf <= maxShift === (from === kf);
  });
}

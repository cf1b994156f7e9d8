/**
 * One damaged clip through every contender: run it, score it against the clean reference, and
 * check the sound (click sync to the sample, hum left) and, on dropout clips, how the frames
 * that carried a streak compare with their neighbours. Shared by the benchmark and the smoke
 * test in the suite.
 */
import { join } from "node:path";
import type { FadeHint } from "../../src/engines/restore/index.js";
import { analyseHum } from "../../src/engines/restore/probe.js";
import { measureQuality } from "../../src/engines/restore/quality.js";
import { clickOnsets, clickShift, decodeMono, SYNC_RATE } from "./audio.js";
import { type ContenderName, type Run, runContender } from "./contenders.js";
import { clickTimes, type Degradation } from "./degradations.js";
import type { Row } from "./report.js";

export interface Evaluation {
  rows: Row[];
  runs: Run[];
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/**
 * How far the frames that carried a dropout streak fall below their neighbours (the frames one
 * and two either side that carried none), in luma PSNR dB: 0 when repaired to their level,
 * negative below it. Null without streaks.
 */
export function dropoutGapDb(framePsnrY: number[], streakFrames: number[]): number | null {
  const hit = new Set(streakFrames);
  const frames = [...hit].filter((f) => f < framePsnrY.length);
  if (frames.length === 0) return null;
  const neighbours = new Set<number>();
  for (const f of frames) {
    for (const d of [-2, -1, 1, 2]) {
      const n = f + d;
      if (n >= 0 && n < framePsnrY.length && !hit.has(n)) neighbours.add(n);
    }
  }
  const at = (fs: Iterable<number>) => [...fs].map((f) => framePsnrY[f] as number);
  return mean(at(frames)) - mean(at(neighbours));
}

export async function evaluate(opts: {
  clip: string;
  damage: Degradation;
  /** The reporting group of the cell (its damage family, or "levels" for a graded scene). */
  family?: string;
  set?: string;
  /** The damaged upload and the 25p clean reference it came from. */
  input: string;
  reference: string;
  referenceSize: { width: number; height: number };
  contenders: ContenderName[];
  seconds: number;
  /** The customer's fade hint given to every quality (bench --fade); absent: auto. */
  fade?: FadeHint;
  workDir: string;
  /** Called after each contender, e.g. to print a line. */
  onRow?: (row: Row, run: Run) => void;
}): Promise<Evaluation> {
  const { damage, seconds, workDir } = opts;
  const times = clickTimes(seconds);
  const inClicks = clickOnsets(await decodeMono(opts.input, seconds), SYNC_RATE, times);
  const streakFrames = damage.streaks ? damage.streaks(seconds).map((s) => s.frame) : null;
  const rows: Row[] = [];
  const runs: Run[] = [];
  for (const contender of opts.contenders) {
    const output = join(workDir, `${opts.clip}-${damage.name}-${contender}.mp4`);
    const run = await runContender(
      contender,
      opts.input,
      output,
      opts.referenceSize,
      seconds,
      opts.fade,
    );
    const framesPath = streakFrames ? `${output}.psnr.log` : undefined;
    const score = await measureQuality(opts.reference, run.output, undefined, { framesPath });
    const outClicks = clickOnsets(await decodeMono(run.output, seconds), SYNC_RATE, times);
    const hum = damage.hum ? await analyseHum(run.output, workDir, { windowSec: seconds }) : null;
    const { framePsnrY, ...summary } = score;
    const row: Row = {
      set: opts.set ?? "",
      clip: opts.clip,
      family: opts.family ?? damage.family,
      degradation: damage.name,
      contender,
      score: summary,
      wallPerSec: run.wallSec / seconds,
      kbps: run.kbps,
      syncSamples: clickShift(inClicks, outClicks),
      humDb: hum ? Math.max(hum.db50, hum.db60) : null,
      dropoutGapDb: streakFrames && framePsnrY ? dropoutGapDb(framePsnrY, streakFrames) : null,
    };
    rows.push(row);
    runs.push(run);
    opts.onRow?.(row, run);
  }
  return { rows, runs };
}

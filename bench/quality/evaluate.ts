/**
 * One damaged clip through every contender: restore, score against the clean reference, and
 * check the sound (click sync to the sample, hum left). Shared by the benchmark and the smoke
 * test in the suite.
 */
import { join } from "node:path";
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

export async function evaluate(opts: {
  clip: string;
  damage: Degradation;
  /** The damaged upload and the 25p clean reference it came from. */
  input: string;
  reference: string;
  referenceSize: { width: number; height: number };
  contenders: ContenderName[];
  seconds: number;
  workDir: string;
  /** Called after each contender, e.g. to print a line. */
  onRow?: (row: Row, run: Run) => void;
}): Promise<Evaluation> {
  const { damage, seconds, workDir } = opts;
  const times = clickTimes(seconds);
  const inClicks = clickOnsets(await decodeMono(opts.input, seconds), SYNC_RATE, times);
  const rows: Row[] = [];
  const runs: Run[] = [];
  for (const contender of opts.contenders) {
    const output = join(workDir, `${opts.clip}-${damage.name}-${contender}.mp4`);
    const run = await runContender(contender, opts.input, output, opts.referenceSize, seconds);
    const score = await measureQuality(opts.reference, output);
    const outClicks = clickOnsets(await decodeMono(output, seconds), SYNC_RATE, times);
    const hum = damage.hum ? await analyseHum(output, workDir, { windowSec: seconds }) : null;
    const row: Row = {
      clip: opts.clip,
      degradation: damage.name,
      contender,
      score,
      wallPerSec: run.wallSec / seconds,
      kbps: run.kbps,
      syncSamples: clickShift(inClicks, outClicks),
      humDb: hum ? Math.max(hum.db50, hum.db60) : null,
    };
    rows.push(row);
    runs.push(run);
    opts.onRow?.(row, run);
  }
  return { rows, runs };
}

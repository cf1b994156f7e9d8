/**
 * The excerpt a preview restores: the candidate windows measured by the restore engine's own
 * analysis, the most damaged chosen (damage.ts), and cut to a file of its own — losslessly
 * (FFV1 picture, FLAC sound, in Matroska), its field order kept — so each quality's restore
 * sees those seconds exactly as they are in the video.
 */

import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { at } from "../../../domain/checked-index.js";
import { runFfmpeg } from "../../../engines/ffmpeg.js";
import type { SourceInfo } from "../../../engines/restore/index.js";
import { analyseVideo, probeSource } from "../../../engines/restore/probe.js";
import { candidateStarts, foundWords, type WindowReading, worstIndex } from "./damage.js";

/** How many windows are measured along a long video. */
const CANDIDATES = 6;
/** How much of each window the analysis decodes (from its middle). */
const PROBE_SEC = 2;

/** The window chosen: where it starts, how long it is, and what was found in it. */
export interface Excerpt {
  startSec: number;
  lengthSec: number;
  found: string[];
  source: SourceInfo;
}

/** Measures the candidate windows of `lengthSec` one after the other; the worst one. */
export async function worstWindow(opts: {
  inputPath: string;
  durationSec: number;
  lengthSec: number;
  workDir: string;
  signal: AbortSignal;
}): Promise<Excerpt> {
  const { inputPath, durationSec, signal } = opts;
  const lengthSec = Math.min(opts.lengthSec, durationSec);
  const source = await probeSource(inputPath, signal);
  const starts = candidateStarts(durationSec, lengthSec, CANDIDATES);
  const seconds = Math.min(PROBE_SEC, lengthSec);
  const dir = await mkdtemp(path.join(opts.workDir, "analysis-"));
  const readings: WindowReading[] = [];
  try {
    for (const start of starts) {
      const sample = { startSec: start + (lengthSec - seconds) / 2, seconds };
      readings.push(
        await analyseVideo(inputPath, source, dir, {
          samples: [sample],
          levels: true,
          shake: false,
          signal,
          processes: 1,
        }),
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const worst = worstIndex(readings);
  return {
    startSec: starts[worst] ?? 0,
    lengthSec,
    found: foundWords(at(readings, worst)),
    source,
  };
}

/** ffmpeg's name of a field order, for the excerpt's header. */
const FIELD_ORDER = { tff: "tt", bff: "bb" } as const;

/** Cuts the excerpt to `outPath` (Matroska), frame-exact, lossless. */
export async function cutExcerpt(
  inputPath: string,
  excerpt: Excerpt,
  outPath: string,
  signal: AbortSignal,
): Promise<void> {
  const { source } = excerpt;
  const order =
    source.fieldOrder === "tff" || source.fieldOrder === "bff"
      ? ["-field_order", FIELD_ORDER[source.fieldOrder]]
      : [];
  await runFfmpeg(
    [
      "-loglevel",
      "error",
      "-y",
      "-ss",
      excerpt.startSec.toFixed(3),
      "-i",
      inputPath,
      "-t",
      excerpt.lengthSec.toFixed(3),
      "-map",
      `0:${source.videoStreamIndex}`,
      "-map",
      "0:a:0?",
      "-c:v",
      "ffv1",
      ...order,
      "-c:a",
      "flac",
      "-f",
      "matroska",
      outPath,
    ],
    { signal },
  );
}

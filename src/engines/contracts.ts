/**
 * The one contract per engine kind. The local ffmpeg engines (engines/restore, engines/clip)
 * and the remote Cog engines (engines/cog) implement these; the worker's executors depend on
 * nothing else, so a worker picks an engine by configuration without casts.
 */
import type { ClipSize } from "./clip/plan.js";
import type { FadeHint, RestoreQuality } from "./restore/types.js";

/**
 * One restore as an engine gets it: the input file and what was asked. `Prepared` is what the
 * engine's own `prepare` returns (the ffmpeg engine's plan); callers only pass it back.
 */
export interface RestoreJob<Prepared = unknown> {
  inputPath: string;
  /** A presigned URL of the input, for engines that fetch it themselves (Cog). */
  inputUrl?: string;
  outputPath: string;
  quality: RestoreQuality;
  /** What the customer said of the levels; absent means "auto" (the engine decides). */
  fade?: FadeHint;
  signal?: AbortSignal;
  /** 0..1, increasing. */
  onProgress?: (fraction: number) => void;
  /** The real length just measured, so the engine need not scan the file again. */
  durationSec?: number;
  /** What this engine's `prepare` decided for the same file and quality: not decided again. */
  prepared?: Prepared;
}

/** What a restore engine made: the measured length and the output's facts. */
export interface RestoreOutcome {
  /** Real duration of the input: the job's own `durationSec`, else what the engine measured. */
  durationSec: number;
  /** Size of the delivered video. */
  width: number;
  height: number;
  /** What the engine decided (its own shape: the ffmpeg plan, or the remote prediction). */
  plan: object;
  /** Wall time of the whole restore. */
  elapsedMs: number;
}

/** Restores a video (ffmpeg in process, or a Cog server). */
export interface RestoreEngine<Prepared = unknown> {
  readonly name: string;
  /** Real duration by packet scan (not the header); throws for unreadable input. */
  measureDurationSec(inputPath: string, signal?: AbortSignal): Promise<number>;
  /**
   * The engine's reading of the file before it spends on the restore (the ffmpeg engine's
   * probe), for a worker to run while it measures the length; its result goes back as
   * `RestoreJob.prepared`. Optional: without it, `restore` decides by itself.
   */
  prepare?(job: Pick<RestoreJob, "inputPath" | "quality" | "signal">): Promise<Prepared>;
  restore(job: RestoreJob<Prepared>): Promise<RestoreOutcome>;
  /** What this machine lacks to run the engine (sentences naming what to install); empty when ready. */
  unmetNeeds?(): string[];
}

/** One clip as an engine gets it: the image and the plan's inputs. */
export interface ClipJob {
  imagePath: string;
  /** Where the image came from, for engines that fetch it themselves. */
  imageUrl?: string;
  outputPath: string;
  prompt: string;
  size: ClipSize;
  loop: boolean;
  seed: number;
  signal?: AbortSignal;
  /** 0..1, increasing; 1 once the file is in place. */
  onProgress?: (fraction: number) => void;
}

/** What a clip engine made: length, frame and file size. */
export interface ClipOutcome {
  durationSec: number;
  width: number;
  height: number;
  /** Motion kind used, e.g. "zoom_in", "pan_left", "drift". */
  motion: string;
  /** Ambience kind used, e.g. "rain", "forest", "room". */
  sound: string;
  fps: number;
}

/** Makes a clip from an image and a prompt (ffmpeg in process, or a Cog server). */
export interface ClipEngine {
  readonly name: string;
  makeClip(job: ClipJob): Promise<ClipOutcome>;
  /** What this machine lacks to run the engine (sentences naming what to install); empty when ready. */
  unmetNeeds?(): string[];
}

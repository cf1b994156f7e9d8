/**
 * Restore and clip engines backed by a remote Cog model (a GPU box or Replicate-style
 * gateway). They implement the engine contracts (../contracts.ts) the local ffmpeg engines
 * implement, so a worker can pick either by configuration.
 *
 * Inputs go to the model as a URL when the caller has one (a presigned storage URL), else as
 * a data URL of the local file, refused above 20 MB: a bigger JSON body is slow and Cog
 * servers buffer it whole. Outputs are saved with a byte cap and probed with ffprobe so the
 * reported size and duration are what the file really holds, not what the model claims.
 */
import { readFile, rm, stat } from "node:fs/promises";
import { extname } from "node:path";
import { recordOf, recordsOf } from "../../domain/records.js";
import type { Signer } from "../../signing.js";
import type {
  ClipEngine,
  ClipJob,
  ClipOutcome,
  RestoreEngine,
  RestoreJob,
  RestoreOutcome,
} from "../contracts.js";
import { ffprobeJson, unmetFfmpegNeeds } from "../ffmpeg.js";
import { CogError, createCogClient } from "./cog-client.js";
import { saveOutput } from "./outputs.js";
import {
  type FinalPrediction,
  newPredictionId,
  type Prediction,
  progressFromLogs,
} from "./prediction.js";
import type { PredictionWaiter } from "./waiter.js";
import { WEBHOOK_TOKEN_GRACE_MS, webhookUrlFor } from "./webhook.js";

/** A restore job as the Cog engine takes it: the contract's, plus a prediction to resume. */
interface RestoreArgs extends RestoreJob {
  /** Reuse the id of an earlier attempt so a retried job re-attaches instead of re-running. */
  predictionId?: string;
}

/** What a remote restore records about itself (the local engine's plan is richer). */
interface CogRestorePlan {
  version: 1;
  engine: "cog";
  quality: string;
  predictionId: string;
  predictTimeSec: number | null;
  outputDurationSec: number;
  notes: string[];
}

interface CogRestoreResult extends RestoreOutcome {
  plan: CogRestorePlan;
}

interface CogRestoreEngine extends RestoreEngine {
  restore(args: RestoreArgs): Promise<CogRestoreResult>;
}

/** A clip job as the Cog engine takes it: the contract's, plus a prediction to resume. */
interface ClipArgs extends ClipJob {
  predictionId?: string;
}

interface CogClipEngine extends ClipEngine {
  makeClip(args: ClipArgs): Promise<ClipOutcome>;
}

interface CogEngineConfig {
  baseUrl: string;
  token?: string;
  /** Our public webhook endpoint; needs `webhookSecret` and `waiter`. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** Signs each prediction's webhook URL token (unsigned, plain Cog deliveries need it). */
  webhookTokens?: Signer;
  waiter?: PredictionWaiter;
  timeoutMs: number;
  pollIntervalMs: number;
  fetchImpl?: typeof fetch;
  /** Largest input sent inline as a data URL (default 20 MB). */
  maxInlineBytes?: number;
  /** Largest output accepted (default 2 GiB). */
  maxOutputBytes?: number;
}

const DEFAULT_MAX_INLINE_BYTES = 20 * 1024 * 1024;
const DEFAULT_MAX_OUTPUT_BYTES = 2 * 1024 * 1024 * 1024;
const CLIP_SECONDS = 5;

const MIME_BY_EXT: Record<string, string> = {
  ".mp4": "video/mp4",
  ".m4v": "video/mp4",
  ".mov": "video/quicktime",
  ".webm": "video/webm",
  ".mkv": "video/x-matroska",
  ".avi": "video/x-msvideo",
  ".mpg": "video/mpeg",
  ".ts": "video/mp2t",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".webp": "image/webp",
};

/** The model's file input: the caller's URL, or the file inline as a data URL. */
async function fileInput(path: string, url: string | undefined, maxInline: number, what: string) {
  if (url) return url;
  const { size } = await stat(path);
  if (size > maxInline) {
    throw new CogError(
      "invalid_input",
      `The ${what} is larger than ${Math.round(maxInline / 1048576)} MB; the remote engine needs a URL for it (configure storage that issues download URLs).`,
    );
  }
  const mime = MIME_BY_EXT[extname(path).toLowerCase()] ?? "application/octet-stream";
  return `data:${mime};base64,${(await readFile(path)).toString("base64")}`;
}

interface Probe {
  durationSec: number;
  width: number;
  height: number;
  fps: number;
  hasAudio: boolean;
}

/** "30000/1001" → 29.97; 0 when unknown. */
function frameRate(value: unknown): number {
  const [num, den] = String(value ?? "")
    .split("/")
    .map(Number);
  return num && den ? Math.round((num / den) * 1000) / 1000 : 0;
}

async function probeVideo(path: string, signal?: AbortSignal): Promise<Probe> {
  const info = await ffprobeJson(["-show_format", "-show_streams", path], { signal });
  const streams = recordsOf(info.streams);
  const video = streams.find((s) => s.codec_type === "video");
  if (!video) throw new CogError("bad_response", "The remote model returned a file with no video.");
  const format = recordOf(info.format);
  const durationSec = Number(format.duration ?? video.duration);
  return {
    durationSec: Number.isFinite(durationSec) ? durationSec : 0,
    width: Number(video.width),
    height: Number(video.height),
    fps: frameRate(video.avg_frame_rate) || frameRate(video.r_frame_rate),
    hasAudio: streams.some((s) => s.codec_type === "audio"),
  };
}

interface RemoteArgs {
  outputPath: string;
  signal?: AbortSignal;
  onProgress?: (f: number) => void;
  predictionId?: string;
}

/** Runs one prediction to a successful end; a failed or cancelled one throws. */
async function predict(
  cfg: CogEngineConfig,
  input: Record<string, unknown>,
  args: RemoteArgs,
): Promise<FinalPrediction> {
  const client = createCogClient({
    baseUrl: cfg.baseUrl,
    token: cfg.token,
    fetchImpl: cfg.fetchImpl,
    pollIntervalMs: cfg.pollIntervalMs,
    timeoutMs: cfg.timeoutMs,
  });
  const id = args.predictionId ?? newPredictionId();
  const useWebhook = Boolean(cfg.webhookUrl && cfg.webhookSecret && cfg.waiter);
  const onUpdate = (p: Prediction) => {
    const fraction = progressFromLogs(p.logs);
    if (fraction !== null) args.onProgress?.(Math.min(fraction, 0.99));
  };
  const final = await client.run(id, input, {
    signal: args.signal,
    timeoutMs: cfg.timeoutMs,
    waiter: useWebhook ? cfg.waiter : undefined,
    webhookUrl: useWebhook ? webhookTarget(cfg, id) : undefined,
    // Output events carry partial outputs we do not use; logs carry progress.
    webhookEventsFilter: ["start", "logs", "completed"],
    onUpdate,
  });
  if (final.status === "failed") {
    throw new CogError("failed", `The remote model failed: ${final.error ?? "no error message"}.`);
  }
  if (final.status === "canceled") {
    throw new CogError("canceled", "The remote model cancelled the prediction.");
  }
  return final;
}

/** The webhook URL of one prediction: with a URL token when a signer is configured. */
function webhookTarget(cfg: CogEngineConfig, id: string): string | undefined {
  if (!cfg.webhookUrl) return undefined;
  if (!cfg.webhookTokens) return cfg.webhookUrl;
  const expiresAtMs = Date.now() + cfg.timeoutMs + WEBHOOK_TOKEN_GRACE_MS;
  return webhookUrlFor(cfg.webhookUrl, id, cfg.webhookTokens, expiresAtMs);
}

/**
 * Runs one prediction, saves its output to outputPath, probes and verifies it. Nothing is
 * left at outputPath unless the whole thing succeeded.
 */
async function runRemote(
  cfg: CogEngineConfig,
  input: Record<string, unknown>,
  args: RemoteArgs,
  verify: (probe: Probe) => void = () => {},
): Promise<{ final: FinalPrediction; probe: Probe }> {
  const final = await predict(cfg, input, args);
  const modelOrigin = new URL(cfg.baseUrl).origin;
  await saveOutput(final.output, args.outputPath, {
    maxBytes: cfg.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    fetchImpl: cfg.fetchImpl,
    signal: args.signal,
    // Our token only goes to the model server itself, never to a third-party file host.
    headersFor: (url): Record<string, string> =>
      cfg.token && url.origin === modelOrigin ? { authorization: `Bearer ${cfg.token}` } : {},
  });
  try {
    const probe = await probeVideo(args.outputPath, args.signal);
    verify(probe);
    args.onProgress?.(1);
    return { final, probe };
  } catch (err) {
    await rm(args.outputPath, { force: true });
    throw err;
  }
}

function checkWebhookConfig(cfg: CogEngineConfig) {
  if (cfg.webhookUrl && !cfg.webhookSecret) {
    throw new Error(
      "A Cog webhookUrl needs a webhookSecret: unauthenticated webhooks are refused.",
    );
  }
}

/**
 * A RestoreEngine that sends `{video, quality}` to a Cog model, and `fade` when the customer
 * said one (a model that predates it is never sent an input it does not know). Duration is
 * measured locally (`measureDurationSec`) because pricing happens before any remote work.
 */
export function createCogRestoreEngine(
  cfg: CogEngineConfig & {
    measureDurationSec: (inputPath: string, signal?: AbortSignal) => Promise<number>;
    name?: string;
  },
): CogRestoreEngine {
  checkWebhookConfig(cfg);
  const maxInline = cfg.maxInlineBytes ?? DEFAULT_MAX_INLINE_BYTES;
  return {
    name: cfg.name ?? "cog-restore",
    measureDurationSec: (inputPath, signal) => cfg.measureDurationSec(inputPath, signal),
    // The length is measured and the result probed here, with ffprobe.
    unmetNeeds: unmetFfmpegNeeds,
    async restore(args) {
      const startedMs = Date.now();
      // Measured locally first: an unreadable input fails before any GPU time is spent.
      const inputSec = await cfg.measureDurationSec(args.inputPath, args.signal);
      const video = await fileInput(args.inputPath, args.inputUrl, maxInline, "input video");
      // Restoration keeps the timeline; a much shorter file means the model cut it short.
      const told = args.fade && args.fade !== "auto" ? { fade: args.fade } : {};
      const inputs = { video, quality: args.quality, ...told };
      const { final, probe } = await runRemote(cfg, inputs, args, (p) => {
        if (p.durationSec < inputSec - Math.max(0.5, inputSec * 0.05)) {
          throw new CogError(
            "bad_response",
            `The remote model returned ${p.durationSec.toFixed(1)} s of video for a ${inputSec.toFixed(1)} s input.`,
          );
        }
      });
      const predictTime = Number(final.metrics.predict_time);
      return {
        durationSec: inputSec,
        width: probe.width,
        height: probe.height,
        elapsedMs: Date.now() - startedMs,
        plan: {
          version: 1,
          engine: "cog",
          quality: args.quality,
          predictionId: final.id,
          predictTimeSec: Number.isFinite(predictTime) ? predictTime : null,
          outputDurationSec: probe.durationSec,
          notes: [`restored remotely by Cog prediction ${final.id}`],
        },
      };
    },
  };
}

/** A ClipEngine that sends `{image, prompt, size, loop, seed, seconds: 5}` to a Cog model. */
export function createCogClipEngine(cfg: CogEngineConfig & { name?: string }): CogClipEngine {
  checkWebhookConfig(cfg);
  const maxInline = cfg.maxInlineBytes ?? DEFAULT_MAX_INLINE_BYTES;
  return {
    name: cfg.name ?? "cog-clip",
    // The result is probed here, with ffprobe.
    unmetNeeds: unmetFfmpegNeeds,
    async makeClip(args) {
      const image = await fileInput(args.imagePath, args.imageUrl, maxInline, "image");
      const input = {
        image,
        prompt: args.prompt,
        size: args.size,
        loop: args.loop,
        seed: args.seed,
        seconds: CLIP_SECONDS,
      };
      const { final, probe } = await runRemote(cfg, input, args);
      // A model may describe its motion and sound; otherwise say where they came from.
      const described = recordOf(final.output);
      return {
        durationSec: probe.durationSec,
        width: probe.width,
        height: probe.height,
        fps: probe.fps,
        motion: typeof described.motion === "string" ? described.motion : "remote model",
        sound:
          typeof described.sound === "string"
            ? described.sound
            : probe.hasAudio
              ? "remote model"
              : "none",
      };
    },
  };
}

/**
 * What the client declares about a video before paying: its length, picture size and type,
 * read locally — with the system's ffprobe when there is one (FFPROBE_PATH, else `ffprobe` on
 * PATH), otherwise from the container's own header (./video-length.ts: MP4/MOV, Matroska/WebM,
 * AVI), so the client needs no 141 MB of ffmpeg packages. The server measures the real length
 * again and refunds the difference, so this only has to be honest, not authoritative.
 *
 * What is certainly not a video — an empty file, a photo, a text file, a sound file, a single
 * still frame — stops here with a sentence saying so, before any price is asked or charged
 * (./not-video.ts reads the first bytes; ffprobe's streams and the header's tracks say the rest).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { EXIT } from "./exit-codes.js";
import { CliFailure } from "./failures.js";
import { notVideoReason } from "./not-video.js";
import { readVideoHeader } from "./video-length.js";

/** What ffprobe says about a video: length, picture size and type. */
export interface VideoFacts {
  durationSec: number;
  width?: number;
  height?: number;
  contentType: string;
}

const BY_EXTENSION: Record<string, string> = {
  mp4: "video/mp4",
  m4v: "video/x-m4v",
  mov: "video/quicktime",
  qt: "video/quicktime",
  mkv: "video/x-matroska",
  webm: "video/webm",
  avi: "video/x-msvideo",
  mpg: "video/mpeg",
  mpeg: "video/mpeg",
  vob: "video/mpeg",
  ts: "video/mp2t",
  mts: "video/mp2t",
  m2ts: "video/mp2t",
  "3gp": "video/3gpp",
  "3g2": "video/3gpp2",
  flv: "video/x-flv",
  ogv: "video/ogg",
  wmv: "video/x-ms-wmv",
  dv: "video/dv",
};

/** ffprobe's container names, for files whose extension says nothing. */
const BY_FORMAT: [RegExp, string][] = [
  [/mp4|mov/, "video/mp4"],
  [/matroska|webm/, "video/x-matroska"],
  [/^avi$/, "video/x-msvideo"],
  [/mpegts/, "video/mp2t"],
  [/^mpeg$|vob/, "video/mpeg"],
  [/flv/, "video/x-flv"],
  [/asf/, "video/x-ms-wmv"],
  [/ogg/, "video/ogg"],
  [/^dv$/, "video/dv"],
];

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  nb_frames?: string;
  disposition?: { attached_pic?: number };
}

interface ProbeJson {
  format?: { duration?: string; format_name?: string };
  streams?: ProbeStream[];
}

/** ffprobe's names for containers of single pictures (image2, jpeg_pipe, png_pipe, …). */
const STILL_FORMATS = /^image2|_pipe$/;

/** Stops the command before any price: `file` is not a video, for the reason given. */
function notAVideo(reason: string): CliFailure {
  return new CliFailure(`${reason} Nothing was charged.`, EXIT.failed, { not_video: true });
}

/** The container types the header reader names, for files whose extension says nothing. */
const BY_CONTAINER: Record<string, string> = {
  mp4: "video/mp4",
  mov: "video/quicktime",
  matroska: "video/x-matroska",
  webm: "video/webm",
  avi: "video/x-msvideo",
};

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs ffprobe; rejects with ENOENT when there is none. */
function runFfprobe(args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(env.FFPROBE_PATH || "ffprobe", args, {
      stdio: ["ignore", "pipe", "pipe"],
      signal: AbortSignal.timeout(60_000),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

// cast: spawn's failure is Node's errno error; only its code is compared
const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === "ENOENT";

/**
 * Probes `file` of `sizeBytes` (ffprobe first, the header reader when there is no ffprobe); a
 * file that is not a video, or that neither can read, is an error naming it, raised before
 * anything is quoted or charged.
 */
export async function probeVideo(
  file: string,
  sizeBytes: number,
  env = process.env,
): Promise<VideoFacts> {
  const reason = await notVideoReason(file, sizeBytes);
  if (reason) throw notAVideo(reason);
  let data: ProbeJson;
  try {
    const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file];
    const probe = await runFfprobe(args, env);
    if (probe.code !== 0) throw new Error(probe.stderr || `ffprobe exited with ${probe.code}`);
    // cast: ffprobe's JSON, read leniently: each field is checked before use
    data = JSON.parse(probe.stdout) as ProbeJson;
  } catch (err) {
    if (isMissing(err)) return fromHeader(file);
    // ffprobe's own words ("moov atom not found") are for a bug report, not for the person.
    // cast: any thrown value; its message (or itself) is only shown
    const said = String((err as Error).message ?? err)
      .trim()
      .split("\n")[0];
    const detail = env.KINORA_DEBUG ? ` (ffprobe: ${said})` : "";
    throw notAVideo(
      `${path.basename(file)} is not a video ffprobe can read: it may be damaged or cut short, or not a video at all${detail}.`,
    );
  }
  return fromProbe(file, data);
}

/** The facts from ffprobe's answer, or why the file is not a video after all. */
function fromProbe(file: string, data: ProbeJson): VideoFacts {
  const name = path.basename(file);
  const streams = data.streams ?? [];
  // A cover picture inside a sound file is a "video stream" to ffprobe, but not a video.
  const video = streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
  const format = data.format?.format_name ?? "";
  if (!video) {
    const sound = streams.some((s) => s.codec_type === "audio");
    throw notAVideo(
      sound
        ? `${name} has sound but no picture: a restore needs a video.`
        : `${name} has no video stream.`,
    );
  }
  if (STILL_FORMATS.test(format) || video.nb_frames === "1") {
    throw notAVideo(
      `${name} is a single still picture (${video.codec_name ?? format}), not a video: a restore needs a moving picture; to bring a photo to life, use kinora clip.`,
    );
  }
  const durationSec = Number(data.format?.duration ?? video.duration);
  if (!Number.isFinite(durationSec) || durationSec <= 0) {
    throw notAVideo(`${name} has no length ffprobe can read.`);
  }
  const ext = path.extname(file).slice(1).toLowerCase();
  const contentType =
    BY_EXTENSION[ext] ?? BY_FORMAT.find(([re]) => re.test(format))?.[1] ?? "video/mp4";
  return {
    // Rounded up to the millisecond: declaring a hair less than the real length gains nothing.
    durationSec: Math.ceil(durationSec * 1000) / 1000,
    ...(video.width && video.height ? { width: video.width, height: video.height } : {}),
    contentType,
  };
}

/** The length and size from the container header, when no ffprobe is installed. */
async function fromHeader(file: string): Promise<VideoFacts> {
  const header = await readVideoHeader(file).catch((err: Error) => {
    throw new CliFailure(`Could not read ${file} (${err.message}).`, EXIT.failed);
  });
  if (header?.video === false) {
    throw notAVideo(`${path.basename(file)} has sound but no picture: a restore needs a video.`);
  }
  if (!header || !(header.durationSec > 0)) {
    throw new CliFailure(
      `${file}: no length found in its header (MP4, MOV, MKV, WebM and AVI are read without ffprobe). Install ffmpeg (its ffprobe reads every format) or convert the file to MP4.`,
      EXIT.failed,
    );
  }
  const ext = path.extname(file).slice(1).toLowerCase();
  return {
    durationSec: Math.ceil(header.durationSec * 1000) / 1000,
    ...(header.width && header.height ? { width: header.width, height: header.height } : {}),
    contentType: BY_EXTENSION[ext] ?? BY_CONTAINER[header.container] ?? "video/mp4",
  };
}

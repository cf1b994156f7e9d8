/**
 * What the client declares about a video before paying: its length, picture size and type,
 * read locally with ffprobe (the static one the npm package ships, else the system's). The server
 * checks the real length again, so this only has to be honest, not authoritative.
 */
import path from "node:path";
import { runFfprobe } from "../../engines/ffmpeg.js";
import { EXIT } from "./exit-codes.js";
import { CliFailure } from "./failures.js";

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

interface ProbeJson {
  format?: { duration?: string; format_name?: string };
  streams?: { codec_type?: string; width?: number; height?: number; duration?: string }[];
}

/** Probes `file`; a file ffprobe cannot read, or without a video stream, is an error naming it. */
export async function probeVideo(file: string): Promise<VideoFacts> {
  let data: ProbeJson;
  try {
    const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file];
    const probe = await runFfprobe(args, { signal: AbortSignal.timeout(60_000) });
    if (probe.code !== 0) throw new Error(probe.stderr || `ffprobe exited with ${probe.code}`);
    data = JSON.parse(probe.stdout) as ProbeJson;
  } catch (err) {
    const why = ((err as Error).message || String(err)).trim().split("\n")[0];
    throw new CliFailure(`ffprobe could not read ${file} as a video (${why}).`, EXIT.failed);
  }
  const video = data.streams?.find((s) => s.codec_type === "video");
  const durationSec = Number(data.format?.duration ?? video?.duration);
  if (!video || !Number.isFinite(durationSec) || durationSec <= 0) {
    throw new CliFailure(
      `${file} has no video stream with a length ffprobe can read.`,
      EXIT.failed,
    );
  }
  const ext = path.extname(file).slice(1).toLowerCase();
  const format = data.format?.format_name ?? "";
  const contentType =
    BY_EXTENSION[ext] ?? BY_FORMAT.find(([re]) => re.test(format))?.[1] ?? "video/mp4";
  return {
    // Rounded up to the millisecond: declaring a hair less than the real length gains nothing.
    durationSec: Math.ceil(durationSec * 1000) / 1000,
    ...(video.width && video.height ? { width: video.width, height: video.height } : {}),
    contentType,
  };
}

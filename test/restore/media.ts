/**
 * Test helpers: tiny synthetic inputs made by ffmpeg in a temp dir, and ffprobe summaries of
 * outputs. Used by the restore tests only; kept small so the suite fits two shared cores.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffmpegBinaries, ffprobeJson, runFfmpeg } from "../../src/engines/ffmpeg.js";

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "kinora-restore-test-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface GenerateOptions {
  /** lavfi video source, e.g. "testsrc2=s=320x240:r=25". */
  video: string;
  seconds: number;
  /** Filters applied to the video (degradations, interlacing…). */
  vf?: string;
  /** lavfi audio source(s) mixed into one track; omit for a silent-less (no audio) file. */
  audio?: string;
  /** Output codec arguments; default x264 ultrafast (+ AAC when audio). */
  codec?: string[];
  /** Extra output arguments (container flags, metadata). */
  extra?: string[];
}

/** Makes a synthetic clip at `out`. */
export async function generate(out: string, opts: GenerateOptions): Promise<string> {
  const args = ["-y", "-f", "lavfi", "-t", String(opts.seconds), "-i", opts.video];
  if (opts.audio) args.push("-f", "lavfi", "-t", String(opts.seconds), "-i", opts.audio);
  if (opts.vf) args.push("-vf", opts.vf);
  args.push(...(opts.codec ?? ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "14"]));
  if (opts.audio) args.push("-c:a", "aac", "-b:a", "128k");
  args.push(...(opts.extra ?? []), out);
  await runFfmpeg(args);
  return out;
}

export interface StreamSummary {
  format: string;
  video?: { codec: string; width: number; height: number; pixFmt: string; fps: number };
  audio?: { codec: string; sampleRate: number; channels: number };
  rotation: number;
}

export async function summarise(path: string): Promise<StreamSummary> {
  const probe = await ffprobeJson(["-show_streams", "-show_format", path]);
  const streams = (probe.streams ?? []) as Array<Record<string, unknown>>;
  const v = streams.find((s) => s.codec_type === "video");
  const a = streams.find((s) => s.codec_type === "audio");
  const side = (v?.side_data_list ?? []) as Array<Record<string, unknown>>;
  const [num, den] = String(v?.avg_frame_rate ?? "0/1")
    .split("/")
    .map(Number);
  return {
    format: String((probe.format as Record<string, unknown>).format_name),
    video: v && {
      codec: String(v.codec_name),
      width: Number(v.width),
      height: Number(v.height),
      pixFmt: String(v.pix_fmt),
      fps: den ? (num ?? 0) / den : 0,
    },
    audio: a && {
      codec: String(a.codec_name),
      sampleRate: Number(a.sample_rate),
      channels: Number(a.channels),
    },
    rotation: Number(side.find((d) => d.rotation !== undefined)?.rotation ?? 0),
  };
}

/** ffmpeg writing to a pipe cannot seek back to fill in duration or cues: a "piped" file. */
export function pipeTo(file: string, args: string[]): Promise<void> {
  const fd = openSync(file, "w");
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegBinaries().ffmpeg, ["-nostdin", "-v", "error", ...args, "pipe:1"], {
      stdio: ["ignore", fd, "ignore"],
    });
    child.on("error", reject);
    child.on("close", (code) => {
      closeSync(fd);
      code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`));
    });
  });
}

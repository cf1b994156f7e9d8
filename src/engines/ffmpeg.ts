/**
 * Locating and running ffmpeg/ffprobe.
 *
 * Debian's ffmpeg (apt) is preferred: it has every restoration filter we use. When it is
 * missing we fall back to the binaries shipped inside @ffmpeg-installer/@ffprobe-installer
 * (a 2018 build without cas, xfade and anlmdn); engines ask `hasFilter` before using those.
 */
import { spawn, spawnSync } from "node:child_process";
import { accessSync, chmodSync, constants, existsSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
  /** "system" when found on PATH or via FFMPEG_PATH, "bundled" for the npm fallback. */
  source: "system" | "bundled";
}

let cached: FfmpegBinaries | undefined;
const filterCache = new Map<string, Set<string>>();

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = `${dir}/${name}`;
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The installer packages set the exec bit in a postinstall script, which npm may skip
 * (ignore-scripts, or npm 11's script approval): set it ourselves when it is missing.
 */
function ensureExecutable(file: string) {
  try {
    accessSync(file, constants.X_OK);
  } catch {
    try {
      chmodSync(file, 0o755);
    } catch {
      // Read-only install: running it will report the real problem.
    }
  }
}

/**
 * Finds ffmpeg and ffprobe once per process. `override` (from config FFMPEG_PATH/FFPROBE_PATH)
 * wins, then the system binaries, then the bundled npm ones.
 */
export function ffmpegBinaries(override?: { ffmpeg?: string; ffprobe?: string }): FfmpegBinaries {
  if (override?.ffmpeg && override.ffprobe) {
    return { ffmpeg: override.ffmpeg, ffprobe: override.ffprobe, source: "system" };
  }
  if (cached) return cached;
  const sysFfmpeg = onPath("ffmpeg");
  const sysFfprobe = onPath("ffprobe");
  if (sysFfmpeg && sysFfprobe) {
    cached = { ffmpeg: sysFfmpeg, ffprobe: sysFfprobe, source: "system" };
  } else {
    const ffmpeg = (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
    const ffprobe = (require("@ffprobe-installer/ffprobe") as { path: string }).path;
    ensureExecutable(ffmpeg);
    ensureExecutable(ffprobe);
    cached = { ffmpeg, ffprobe, source: "bundled" };
  }
  return cached;
}

/** Whether this ffmpeg build has a filter (e.g. "cas", "anlmdn"). Cached per binary. */
export function hasFilter(name: string, bins: FfmpegBinaries = ffmpegBinaries()): boolean {
  let filters = filterCache.get(bins.ffmpeg);
  if (!filters) {
    const out = spawnSync(bins.ffmpeg, ["-hide_banner", "-filters"], { encoding: "utf8" });
    filters = new Set<string>();
    for (const line of out.stdout.split("\n")) {
      const match = /^\s*[.A-Z|]{2,3}\s+(\S+)\s/.exec(line);
      if (match?.[1]) filters.add(match[1]);
    }
    filterCache.set(bins.ffmpeg, filters);
  }
  return filters.has(name);
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class FfmpegError extends Error {
  constructor(
    message: string,
    readonly stderrTail: string,
  ) {
    super(message);
    this.name = "FfmpegError";
  }
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Called with each stderr chunk; engines parse `time=` for progress. */
  onStderr?: (chunk: string) => void;
  /** Cap on captured output so a chatty process cannot grow memory without bound. */
  maxCaptureBytes?: number;
}

/** Runs a binary with arguments (never through a shell), capturing bounded output. */
export function runProcess(bin: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const cap = opts.maxCaptureBytes ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], signal: opts.signal });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      if (stdout.length < cap) stdout += d;
    });
    child.stderr.on("data", (d: string) => {
      opts.onStderr?.(d);
      stderr += d;
      // Keep only the tail: the error that matters is at the end.
      if (stderr.length > cap) stderr = stderr.slice(-cap / 2);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs ffmpeg; rejects with FfmpegError (last stderr lines) on a non-zero exit. */
export async function runFfmpeg(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const bins = ffmpegBinaries();
  const result = await runProcess(bins.ffmpeg, ["-hide_banner", "-nostdin", ...args], opts);
  if (result.code !== 0) {
    const tail = result.stderr.trim().split("\n").slice(-6).join("\n");
    throw new FfmpegError(`ffmpeg exited with code ${result.code}`, tail);
  }
  return result;
}

/** Runs ffprobe with JSON output and parses it. */
export async function ffprobeJson(
  args: string[],
  opts: RunOptions = {},
): Promise<Record<string, unknown>> {
  const bins = ffmpegBinaries();
  const result = await runProcess(
    bins.ffprobe,
    ["-v", "error", "-print_format", "json", ...args],
    opts,
  );
  if (result.code !== 0) {
    throw new FfmpegError(`ffprobe exited with code ${result.code}`, result.stderr.trim());
  }
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

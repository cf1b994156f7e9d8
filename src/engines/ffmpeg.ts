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
import { recordOf } from "../domain/records.js";
import {
  INSTALL_OPTIONAL,
  isModuleNotFound,
  listInWords,
  MissingMediaError,
} from "./missing-packages.js";

const require = createRequire(import.meta.url);

interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
  /** "system" when found on PATH or via FFMPEG_PATH, "bundled" for the npm fallback. */
  source: "system" | "bundled";
  /** Whether `ffprobe` is the static build (see staticFfprobe): it runs with STATIC_FFPROBE_ENV. */
  ffprobeIsStatic?: boolean;
  /** The system's ffprobe, when `ffprobe` is the static build: `runFfprobe` retries on it. */
  ffprobeFallback?: string;
  /**
   * The ffmpeg that copies packets between files we wrote ourselves (the restore's join): the
   * static bundled build when it runs here (see staticFfmpeg), else `ffmpeg`.
   */
  muxer: string;
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
 * The binary an installer package ships, or MissingMediaError when the package is not
 * installed (it is an optional dependency of @kinora/server).
 */
function bundledBinary(pkg: "@ffmpeg-installer/ffmpeg" | "@ffprobe-installer/ffprobe"): string {
  let file: string;
  try {
    // cast: the installer packages export { path } (CommonJS, untyped)
    file = (require(pkg) as { path: string }).path;
  } catch (err) {
    if (!isModuleNotFound(err)) throw err;
    throw missingBinaries([pkg === "@ffmpeg-installer/ffmpeg" ? "ffmpeg" : "ffprobe"]);
  }
  ensureExecutable(file);
  return file;
}

const bundledFfprobe = () => bundledBinary("@ffprobe-installer/ffprobe");

/** The one sentence a worker without ffmpeg or ffprobe says. */
function missingBinaries(names: string[]): MissingMediaError {
  const packages = names.map((n) => `@${n}-installer/${n}`);
  return new MissingMediaError(
    `${listInWords(names)} not found (not on PATH, optional ${listInWords(packages)} not installed): install ffmpeg (apt install ffmpeg), or run ${INSTALL_OPTIONAL}, or set FFMPEG_PATH and FFPROBE_PATH.`,
  );
}

/** FFMPEG_PATH and FFPROBE_PATH, each used when set. */
function fromEnvironment(env = process.env): { ffmpeg?: string; ffprobe?: string } {
  return { ffmpeg: env.FFMPEG_PATH || undefined, ffprobe: env.FFPROBE_PATH || undefined };
}

/**
 * The static ffprobe @ffprobe-installer ships, when it runs on this machine. A probe reads
 * headers or a few packets, so its cost is mostly start-up: Debian's ffprobe links ~215 shared
 * libraries (libavdevice pulls in SDL, X11, PulseAudio…) and takes 80–100 ms to start here, the
 * static build ~10 ms. That build (2023) is newer than Debian 12's 5.1 and prints the same JSON.
 * ffmpeg itself stays Debian's for everything that decodes: its filters, and its fixes.
 */
function staticFfprobe(): string | undefined {
  return bundledIfItRuns(bundledFfprobe);
}

/** The bundled binary when it is installed and runs here (no build for this platform: none). */
function bundledIfItRuns(locate: () => string): string | undefined {
  try {
    const file = locate();
    const check = spawnSync(file, ["-version"], { stdio: "ignore", timeout: 10_000 });
    return check.status === 0 ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The static ffmpeg @ffmpeg-installer ships, when it runs on this machine, for copying packets
 * between our own files: a join is all start-up (Debian's ffmpeg takes ≈ 0.12 s of CPU to load
 * its ~215 libraries, this build ≈ 5 ms), and copying needs nothing newer than its 2018 muxer.
 * It never reads an upload: decoding what customers send stays with a maintained build.
 */
function staticFfmpeg(): string | undefined {
  return bundledIfItRuns(() => bundledBinary("@ffmpeg-installer/ffmpeg"));
}

/**
 * Finds ffmpeg and ffprobe once per process. `override` (default: FFMPEG_PATH and FFPROBE_PATH
 * from the environment) wins for each binary it names; then ffmpeg from the system, else the
 * bundled one; ffprobe the static bundled one when it runs (see staticFfprobe), else the
 * system's. Throws MissingMediaError, naming what to install, when one is found nowhere.
 */
export function ffmpegBinaries(
  override: { ffmpeg?: string; ffprobe?: string } = fromEnvironment(),
): FfmpegBinaries {
  if (override.ffmpeg && override.ffprobe) {
    const { ffmpeg, ffprobe } = override;
    return { ffmpeg, ffprobe, source: "system", muxer: ffmpeg };
  }
  if (cached) return cached;
  const sysFfmpeg = override.ffmpeg ?? onPath("ffmpeg");
  const sysFfprobe = override.ffprobe ?? onPath("ffprobe");
  const fast = override.ffprobe ? undefined : staticFfprobe();
  const missing = [
    ...(sysFfmpeg || canRequire("@ffmpeg-installer/ffmpeg") ? [] : ["ffmpeg"]),
    ...(fast || sysFfprobe || canRequire("@ffprobe-installer/ffprobe") ? [] : ["ffprobe"]),
  ];
  if (missing.length > 0) throw missingBinaries(missing);
  const probe = {
    ffprobe: fast ?? sysFfprobe ?? bundledFfprobe(),
    ffprobeIsStatic: fast !== undefined || sysFfprobe === undefined,
    ffprobeFallback: fast && sysFfprobe ? sysFfprobe : undefined,
  };
  if (sysFfmpeg && (fast ?? sysFfprobe)) {
    // An ffmpeg the operator named does every job; else the quick static build joins files.
    const muxer = override.ffmpeg ? sysFfmpeg : (staticFfmpeg() ?? sysFfmpeg);
    cached = { ffmpeg: sysFfmpeg, source: "system", muxer, ...probe };
  } else {
    const ffmpeg = bundledBinary("@ffmpeg-installer/ffmpeg");
    cached = { ffmpeg, source: "bundled", muxer: ffmpeg, ...probe };
  }
  return cached;
}

function canRequire(pkg: string): boolean {
  try {
    require.resolve(pkg);
    return true;
  } catch (err) {
    if (isModuleNotFound(err)) return false;
    throw err;
  }
}

/**
 * Why this machine cannot run ffmpeg and ffprobe (one sentence naming what to install), or
 * nothing when it can: an engine's `unmetNeeds`, asked by a worker before it claims a job.
 */
export function unmetFfmpegNeeds(): string[] {
  try {
    ffmpegBinaries();
    return [];
  } catch (err) {
    if (err instanceof MissingMediaError) return [err.message];
    throw err;
  }
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

const optionCache = new Map<string, boolean>();

/**
 * Whether this ffmpeg build's `filter` takes `option` (e.g. movie's "dec_threads", which the
 * 2018 fallback build lacks). Cached per binary and filter.
 */
export function hasFilterOption(
  filter: string,
  option: string,
  bins: FfmpegBinaries = ffmpegBinaries(),
): boolean {
  const key = `${bins.ffmpeg}\0${filter}\0${option}`;
  let known = optionCache.get(key);
  if (known === undefined) {
    const out = spawnSync(bins.ffmpeg, ["-hide_banner", "-h", `filter=${filter}`], {
      encoding: "utf8",
    });
    known = new RegExp(`^\\s+${option}\\s`, "m").test(out.stdout ?? "");
    optionCache.set(key, known);
  }
  return known;
}

/** How an ffmpeg or ffprobe run ended, with its stderr tail. */
export interface RunResult {
  code: number;
  /** The signal that ended the process, or null when it exited by itself. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** ffmpeg failed; the message carries the end of its stderr. */
export class FfmpegError extends Error {
  constructor(
    message: string,
    readonly stderrTail: string,
  ) {
    super(message);
    this.name = "FfmpegError";
  }
}

/** How to run ffmpeg: a signal to stop it, a stderr listener, a time limit. */
export interface RunOptions {
  signal?: AbortSignal;
  /** Called with each stderr chunk; engines parse `time=` for progress. */
  onStderr?: (chunk: string) => void;
  /** Cap on captured output so a chatty process cannot grow memory without bound. */
  maxCaptureBytes?: number;
  /** Extra environment variables for the child. */
  env?: Record<string, string>;
}

/**
 * Asks glibc (2.35 and later) to back malloc's large blocks with transparent huge pages. Every
 * ffmpeg run allocates its frame pools afresh, and a short run pays for that in page faults:
 * the restore probe's two analysis runs (480p, 10 s) took a median 0.56 s with it against
 * 0.67 s without (6 interleaved runs each), while a whole encode was unchanged (2.60 s vs
 * 2.61 s). Other C libraries, older glibc and kernels with huge pages off ignore it. An
 * operator's own `glibc.malloc.hugetlb` setting wins.
 */
export function mediaProcessEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const current = env.GLIBC_TUNABLES;
  if (current?.includes("glibc.malloc.hugetlb")) return {};
  const hugePages = "glibc.malloc.hugetlb=1";
  return { GLIBC_TUNABLES: current ? `${current}:${hugePages}` : hugePages };
}

/**
 * Runs a binary with arguments (never through a shell), capturing bounded output, under
 * `mediaProcessEnv` plus `opts.env`.
 */
export function runProcess(bin: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const cap = opts.maxCaptureBytes ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...mediaProcessEnv(), ...opts.env };
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], signal: opts.signal, env });
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
    child.on("close", (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
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

/**
 * The static ffprobe's glibc would load the system's iconv modules (built for another glibc)
 * and crash: the MPEG-TS demuxer converts every service name. With GCONV_PATH set it skips
 * the system's module cache, finds no converter, and keeps the raw name, which we never read.
 */
const STATIC_FFPROBE_ENV = { GCONV_PATH: "/nonexistent-kinora-gconv" };

/**
 * Runs ffprobe. Should the static build die on a signal (a crash, not our abort), the same
 * probe runs again on the system's ffprobe: a rare file costs one more start, never an answer.
 */
export async function runFfprobe(
  args: string[],
  opts: RunOptions = {},
  bins: Pick<FfmpegBinaries, "ffprobe" | "ffprobeIsStatic" | "ffprobeFallback"> = ffmpegBinaries(),
): Promise<RunResult> {
  const env = bins.ffprobeIsStatic ? STATIC_FFPROBE_ENV : undefined;
  const first = await runProcess(bins.ffprobe, args, { ...opts, env });
  if (first.signal === null || opts.signal?.aborted || !bins.ffprobeFallback) return first;
  return runProcess(bins.ffprobeFallback, args, opts);
}

/** Runs ffprobe with JSON output and parses it. */
export async function ffprobeJson(
  args: string[],
  opts: RunOptions = {},
): Promise<Record<string, unknown>> {
  const result = await runFfprobe(["-v", "error", "-print_format", "json", ...args], opts);
  if (result.code !== 0) {
    throw new FfmpegError(`ffprobe exited with code ${result.code}`, result.stderr.trim());
  }
  return recordOf(JSON.parse(result.stdout));
}

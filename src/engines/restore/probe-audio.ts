/**
 * The audio half of the probe: mains hum over a few excerpts, and loudness over the whole
 * track through the high-pass and the notches the hum decides. Both can share one decode
 * (`analyseHumAndLoudness`): loudness is then measured as if there were no hum, which holds
 * for most files, and measured again through the notches only when the hum calls for them.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { humProminenceOf, parseEbur128 } from "./analysis.js";
import { audioPrefilters, escapeFilterValue } from "./chain.js";
import type { GraphRunner } from "./graph-process.js";
import { runFfmpegForMedia } from "./run.js";
import { secondsText } from "./sampling.js";
import type { AudioPlan, Measurements, Sample } from "./types.js";

/** Mono rate for hum analysis: mains harmonics sit below 250 Hz. */
const HUM_RATE = 2000;

export interface HumOptions {
  /** Where to listen; default the first `windowSec` (60) seconds. */
  samples?: Sample[];
  windowSec?: number;
  signal?: AbortSignal;
  streamIndex?: number;
}

interface Run {
  args: string[];
  /** Where each excerpt's mono PCM lands. */
  files: string[];
}

/** One input per excerpt (`-ss` before `-i`: audio outside them is never decoded). */
function humRun(inputPath: string, dir: string, samples: Sample[], stream: string): Run {
  const args = ["-y"];
  samples.forEach((s) => {
    if (s.startSec > 0) args.push("-ss", secondsText(s.startSec));
    args.push("-t", secondsText(s.seconds), "-vn", "-i", inputPath);
  });
  const files = samples.map((_, i) => join(dir, `hum-${i}.f32`));
  files.forEach((file, i) => {
    args.push("-map", `${i}:${stream}`, "-ac", "1", "-ar", String(HUM_RATE), "-f", "f32le", file);
  });
  return { args, files };
}

/** Goertzel prominence of 50 vs 60 Hz over the excerpts a finished run wrote; null if too few. */
async function humOf(files: string[]): Promise<Measurements["hum"]> {
  const excerpts: Float32Array[] = [];
  for (const file of files) {
    const bytes = await readFile(file).catch(() => null);
    if (!bytes) continue;
    excerpts.push(
      new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4)),
    );
  }
  return humOfExcerpts(excerpts);
}

/** Goertzel prominence of 50 vs 60 Hz over mono HUM_RATE excerpts; null if too few samples. */
function humOfExcerpts(excerpts: Float32Array[]): Measurements["hum"] {
  if (excerpts.reduce((n, e) => n + e.length, 0) < HUM_RATE) return null;
  return humProminenceOf(excerpts, HUM_RATE);
}

const streamSpec = (streamIndex?: number) =>
  streamIndex === undefined ? "a:0" : String(streamIndex);

/**
 * The loudness measurement over the whole track, through the high-pass and hum notches: EBU
 * R128 by ebur128, a third of the CPU of loudnorm's own first pass (480p, 10 s: 0.13–0.18 s
 * against 0.30–0.34 s for this whole run), which also runs its dynamic normaliser and works at
 * 192 kHz. The same quantities by the same standard: on the bench clip ebur128 read I −40.9,
 * threshold −50.9, LRA 0.7, peak −29.2 where loudnorm read −40.86, −50.86, 0.60, −29.17. Both
 * measure the sound before the denoiser that the delivering pass runs ahead of loudnorm, so
 * neither was ever the exact input of the linear pass. Per-frame lines go to the verbose log.
 */
function loudnessChain(audio: Pick<AudioPlan, "highpassHz" | "hum">): string {
  return [...audioPrefilters(audio), "ebur128=peak=true:framelog=verbose"].join(",");
}

/**
 * Goertzel prominence of 50 vs 60 Hz mains harmonics over the excerpts (default: the first
 * `windowSec`, 60, seconds).
 */
export async function analyseHum(
  inputPath: string,
  dir: string,
  opts: HumOptions,
): Promise<Measurements["hum"]> {
  const samples = opts.samples ?? [{ startSec: 0, seconds: opts.windowSec ?? 60 }];
  const run = humRun(inputPath, dir, samples, streamSpec(opts.streamIndex));
  try {
    await runFfmpegForMedia(run.args, { signal: opts.signal });
  } catch (err) {
    // An undecodable audio track only costs us the hum measurement, unless we were cancelled.
    if (opts.signal?.aborted) throw err;
    return null;
  }
  return humOf(run.files);
}

/**
 * The filter that cuts one hum excerpt out of the track, in times from the track's first
 * sample (as `-ss` counts them for the excerpts of analyseHum).
 */
const humCut = (s: Sample) =>
  `atrim=start=${secondsText(s.startSec)}:end=${secondsText(s.startSec + s.seconds)}`;

/** Samples a hum excerpt of `seconds` gives at HUM_RATE. */
const humLength = (seconds: number) => Math.round(seconds * HUM_RATE);

/**
 * The run of `analyseHumAndLoudness` as one filter graph that opens the track itself (amovie),
 * for a spare ffmpeg (graph-process.ts): the same filters, and the same conversion to HUM_RATE
 * mono that `-ac 1 -ar` asks for. Its one output is the hum excerpts back to back, each made
 * exactly `humLength` long (padded with zeros where the track ends early, which `splitHum`
 * strips again), so they can be cut apart.
 */
function humAndLoudnessGraph(
  inputPath: string,
  streamIndex: number,
  plain: Pick<AudioPlan, "highpassHz">,
  samples: Sample[],
): string {
  const labels = samples.map((_, i) => `[h${i}]`);
  const source = `amovie=filename=${escapeFilterValue(inputPath)}:streams=${streamIndex}`;
  const cuts = samples.map((s, i) => {
    const n = humLength(s.seconds);
    const mono = `aformat=sample_fmts=flt:sample_rates=${HUM_RATE}:channel_layouts=mono`;
    return `${labels[i]}${humCut(s)},${mono},apad=whole_len=${n},atrim=end_sample=${n}[c${i}]`;
  });
  const joined = samples.map((_, i) => `[c${i}]`).join("");
  return (
    `${source},asetpts=PTS-STARTPTS,asplit=${samples.length + 1}[l]${labels.join("")};` +
    `[l]${loudnessChain({ ...plain, hum: null })},anullsink;${cuts.join(";")};` +
    `${joined}concat=n=${samples.length}:v=0:a=1[out0]`
  );
}

/**
 * The excerpts laid end to end by `humAndLoudnessGraph`, cut apart, each without the zeros
 * that padded it (where the track ended before the excerpt did, as a file of its own ends).
 */
function splitHum(raw: Uint8Array, samples: Sample[]): Float32Array[] {
  // Floats must start on a 4-byte boundary: copied unless they do.
  const bytes = raw.byteOffset % 4 === 0 ? raw : new Uint8Array(raw);
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4));
  let at = 0;
  return samples.map((s) => {
    const excerpt = all.subarray(at, at + humLength(s.seconds));
    at += humLength(s.seconds);
    let end = excerpt.length;
    while (end > 0 && excerpt[end - 1] === 0) end--;
    return excerpt.subarray(0, end);
  });
}

/** `analyseHumAndLoudness` in a spare of `runner`; null when that run failed. */
async function humAndLoudnessInGraph(
  inputPath: string,
  plain: Pick<AudioPlan, "highpassHz">,
  opts: HumOptions & { samples: Sample[]; streamIndex: number; runner: GraphRunner },
): Promise<{ hum: Measurements["hum"]; plainLoudness: Measurements["loudness"] } | null> {
  const graph = humAndLoudnessGraph(inputPath, opts.streamIndex, plain, opts.samples);
  const chunks: Buffer[] = [];
  const run = await opts.runner.run(graph, {
    signal: opts.signal,
    onFrames: (chunk) => chunks.push(chunk),
  });
  if (run.code !== 0) return null;
  const excerpts = splitHum(Buffer.concat(chunks), opts.samples);
  return { hum: humOfExcerpts(excerpts), plainLoudness: parseEbur128(run.stderr) };
}

/**
 * One decode of the track serves both: it is split, one branch runs the loudness pass through
 * `plain` (the high-pass without notches), the others are cut into the hum excerpts with atrim.
 * One process start and one decode instead of two runs in a row; none with a `runner` that
 * keeps a spare. When that run fails, each is measured on its own, so a bad track fails as it
 * would alone.
 */
export async function analyseHumAndLoudness(
  inputPath: string,
  dir: string,
  plain: Pick<AudioPlan, "highpassHz">,
  opts: HumOptions & { samples: Sample[]; runner?: GraphRunner },
): Promise<{ hum: Measurements["hum"]; plainLoudness: Measurements["loudness"] }> {
  const { samples, runner, streamIndex } = opts;
  if (runner && streamIndex !== undefined) {
    const inGraph = await humAndLoudnessInGraph(inputPath, plain, {
      ...opts,
      runner,
      streamIndex,
    }).catch((err) => {
      if (opts.signal?.aborted) throw err;
      return null;
    });
    if (inGraph) return inGraph;
  }
  const files = samples.map((_, i) => join(dir, `hum-${i}.f32`));
  const labels = samples.map((_, i) => `[h${i}]`);
  const cuts = samples.map((s, i) => `${labels[i]}${humCut(s)}[c${i}]`);
  const graph =
    `[0:${streamSpec(opts.streamIndex)}]asetpts=PTS-STARTPTS,asplit=${samples.length + 1}[l]${labels.join("")};` +
    `[l]${loudnessChain({ ...plain, hum: null })}[loud];${cuts.join(";")}`;
  const args = ["-y", "-vn", "-i", inputPath, "-filter_complex", graph];
  files.forEach((file, i) => {
    args.push("-map", `[c${i}]`, "-ac", "1", "-ar", String(HUM_RATE), "-f", "f32le", file);
  });
  args.push("-map", "[loud]", "-f", "null", "-");
  try {
    const done = await runFfmpegForMedia(args, { signal: opts.signal });
    return { hum: await humOf(files), plainLoudness: parseEbur128(done.stderr) };
  } catch (err) {
    if (opts.signal?.aborted) throw err;
  }
  const hum = await analyseHum(inputPath, dir, opts);
  const plainLoudness = await measureLoudness(inputPath, { ...plain, hum: null }, opts);
  return { hum, plainLoudness };
}

/**
 * The loudness measurement over the whole track, through the high-pass and hum notches. Not
 * sampled: the linear second pass needs the true integrated loudness, range and peak.
 */
export async function measureLoudness(
  inputPath: string,
  audio: Pick<AudioPlan, "highpassHz" | "hum">,
  opts: { signal?: AbortSignal; streamIndex?: number } = {},
): Promise<Measurements["loudness"]> {
  const stream = `0:${streamSpec(opts.streamIndex)}`;
  const run = await runFfmpegForMedia(
    ["-vn", "-i", inputPath, "-map", stream, "-af", loudnessChain(audio), "-f", "null", "-"],
    { signal: opts.signal },
  );
  return parseEbur128(run.stderr);
}

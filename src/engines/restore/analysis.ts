/**
 * Pure parsers and measures over what the probe pass collects (ffprobe JSON, ffmpeg stderr,
 * vidstab files, a mono PCM excerpt). No I/O here, so every rule is unit-tested.
 */
import * as checked from "../../domain/checked-index.js";
import { type JsonRecord, recordOf, recordsOf } from "../../domain/records.js";
import { MediaError, NO_VIDEO_MESSAGE } from "./errors.js";
import type { InterlaceCounts, LoudnessMeasurement, Rotation, SourceInfo } from "./types.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { at, f32At, f64At } = checked;

type Json = JsonRecord;

/** The clockwise turns a picture can need, for snapping a measured angle to one. */
const ROTATIONS: readonly Rotation[] = [0, 90, 180, 270];

function num(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

function ratio(v: unknown): number | null {
  if (typeof v !== "string") return null;
  const [a, b] = v.split(/[/:]/).map(Number);
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) {
    return null;
  }
  return a / b || null;
}

/** Clockwise degrees that make the picture upright, from a display matrix or legacy tag. */
export function rotationFromStream(stream: Json): Rotation {
  let cw = 0;
  const sideData = recordsOf(stream.side_data_list);
  const matrix = sideData.find((d) => num(d.rotation) !== null);
  const tags = recordOf(stream.tags);
  if (matrix) {
    // ffprobe prints the display matrix angle counter-clockwise; we want clockwise.
    cw = -(num(matrix.rotation) ?? 0);
  } else if (num(tags.rotate) !== null) {
    cw = num(tags.rotate) ?? 0;
  }
  const snapped = (((Math.round(cw / 90) * 90) % 360) + 360) % 360;
  return ROTATIONS.find((r) => r === snapped) ?? 0;
}

function fieldOrder(v: unknown): SourceInfo["fieldOrder"] {
  // "tb"/"bt" name the coded order first and the display order second; display order matters.
  if (v === "tt" || v === "bt") return "tff";
  if (v === "bb" || v === "tb") return "bff";
  if (v === "progressive") return "progressive";
  return "unknown";
}

function colorMatrix(v: unknown): SourceInfo["colorMatrix"] {
  if (v === "bt470bg" || v === "smpte170m") return "bt601";
  if (v === "bt709") return "bt709";
  return null;
}

/** Reads `ffprobe -show_streams -show_format` JSON. Throws MediaError when there is no video. */
export function parseSourceInfo(probe: Json): SourceInfo {
  const streams = recordsOf(probe.streams);
  // Cover art in audio files shows up as a one-frame "video" stream; it is not a video.
  const video = streams.find(
    (s) => s.codec_type === "video" && recordOf(s.disposition).attached_pic !== 1,
  );
  if (!video || !num(video.width) || !num(video.height)) {
    throw new MediaError("no_video", NO_VIDEO_MESSAGE);
  }
  const audio = streams.find((s) => s.codec_type === "audio");
  const sar = typeof video.sample_aspect_ratio === "string" ? video.sample_aspect_ratio : "1:1";
  const [sarNum, sarDen] = sar.split(":").map(Number);
  const sarOk = sarNum !== undefined && sarDen !== undefined && sarNum > 0 && sarDen > 0;
  const format = recordOf(probe.format);
  return {
    videoCodec: String(video.codec_name ?? "unknown"),
    videoStreamIndex: num(video.index) ?? 0,
    width: num(video.width) ?? 0,
    height: num(video.height) ?? 0,
    sarNum: sarOk ? sarNum : 1,
    sarDen: sarOk ? sarDen : 1,
    fps: ratio(video.avg_frame_rate) ?? ratio(video.r_frame_rate),
    rotationCw: rotationFromStream(video),
    fieldOrder: fieldOrder(video.field_order),
    colorMatrix: colorMatrix(video.color_space),
    audio: audio
      ? {
          streamIndex: num(audio.index) ?? 1,
          codec: String(audio.codec_name ?? "unknown"),
          sampleRate: num(audio.sample_rate) ?? 48000,
          channels: num(audio.channels) ?? 2,
        }
      : null,
    headerDurationSec: num(format.duration) ?? num(video.duration),
    startTimeSec: num(format.start_time) ?? 0,
    ...(typeof format.format_name === "string" ? { container: format.format_name } : {}),
  };
}

/** The last "Multi frame detection" summary idet printed. */
export function parseIdetSummary(stderr: string): InterlaceCounts | null {
  const re =
    /Multi frame detection:\s*TFF:\s*(\d+)\s*BFF:\s*(\d+)\s*Progressive:\s*(\d+)\s*Undetermined:\s*(\d+)/g;
  let last: RegExpExecArray | null = null;
  for (let m = re.exec(stderr); m; m = re.exec(stderr)) last = m;
  if (!last) return null;
  return {
    tff: Number(last[1]),
    bff: Number(last[2]),
    progressive: Number(last[3]),
    undetermined: Number(last[4]),
  };
}

/** The multi-frame counts of several idet instances (one per excerpt), added up. */
export function sumIdetSummaries(stderr: string): InterlaceCounts | null {
  const re =
    /Multi frame detection:\s*TFF:\s*(\d+)\s*BFF:\s*(\d+)\s*Progressive:\s*(\d+)\s*Undetermined:\s*(\d+)/g;
  let sum: InterlaceCounts | null = null;
  for (const m of stderr.matchAll(re)) {
    sum ??= { tff: 0, bff: 0, progressive: 0, undetermined: 0 };
    sum.tff += Number(m[1]);
    sum.bff += Number(m[2]);
    sum.progressive += Number(m[3]);
    sum.undetermined += Number(m[4]);
  }
  return sum;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? at(s, mid) : (at(s, mid - 1) + at(s, mid)) / 2;
}

/** One vidstab measuring field's motion in one frame. */
export interface FieldMotion {
  x: number;
  y: number;
  dx: number;
  dy: number;
}

/** vidstabdetect's local motions, per frame (frames where it found none are empty). */
export function parseVidstabMotions(trf: string): FieldMotion[][] {
  const frames: FieldMotion[][] = [];
  for (const line of trf.split("\n")) {
    if (!line.startsWith("Frame ")) continue;
    frames.push(
      [...line.matchAll(/\(LM (-?\d+) (-?\d+) (\d+) (\d+) /g)].map((m) => ({
        dx: Number(m[1]),
        dy: Number(m[2]),
        x: Number(m[3]),
        y: Number(m[4]),
      })),
    );
  }
  return frames;
}

/** Component-wise median motion of one field over frames [from, to], skipping gaps. */
function localMedian(series: Array<FieldMotion | undefined>, from: number, to: number) {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let j = Math.max(0, from); j <= Math.min(series.length - 1, to); j++) {
    const o = series[j];
    if (o) {
      xs.push(o.dx);
      ys.push(o.dy);
    }
  }
  return { dx: median(xs), dy: median(ys) };
}

/**
 * Camera shake as a fraction of picture height. For each measuring field, its frame-to-frame
 * motion is compared with its own local median (a pan, or an object crossing, is locally
 * steady; hand-held jitter is not); per frame we take the median over fields of these signed
 * deviations, so only jitter the fields share counts: a shaking camera moves them all the same
 * way, while coarse grain misleads each field's motion search its own way (3-px grain over
 * dense forest: each field off by 2-3 px, the median of their sizes 0.81 % of the height, their
 * shared jitter none), and objects moving inside a steady shot and one-off mismatches are a
 * minority; then the mean over frames.
 */
export function shakeRatio(frames: FieldMotion[][], heightPx: number, halfWindow = 6): number {
  const n = frames.length;
  if (n < 5 || heightPx <= 0) return 0;
  const fields = new Map<string, Array<FieldMotion | undefined>>();
  frames.forEach((lms, i) => {
    for (const lm of lms) {
      const key = `${lm.x},${lm.y}`;
      let series = fields.get(key);
      if (!series) {
        series = new Array<FieldMotion | undefined>(n).fill(undefined);
        fields.set(key, series);
      }
      series[i] = lm;
    }
  });
  const perFrame: number[] = [];
  for (let i = 0; i < n; i++) {
    const dxs: number[] = [];
    const dys: number[] = [];
    for (const series of fields.values()) {
      const m = series[i];
      if (!m) continue;
      const local = localMedian(series, i - halfWindow, i + halfWindow);
      dxs.push(m.dx - local.dx);
      dys.push(m.dy - local.dy);
    }
    // Motion search works in whole pixels: a 1 px wobble is its own rounding, not shake.
    if (dxs.length >= 3) perFrame.push(Math.max(0, Math.hypot(median(dxs), median(dys)) - 1));
  }
  if (perFrame.length === 0) return 0;
  return perFrame.reduce((a, b) => a + b, 0) / perFrame.length / heightPx;
}

/**
 * `shakeRatio` of excerpts analysed back to back: the frames are cut into runs of
 * `chunkFrames` (one excerpt each) and the motion measured across each cut is dropped, so the
 * jump from one excerpt to the next is not read as shake; the runs' ratios are averaged,
 * weighted by their frame counts.
 */
export function shakeRatioOfChunks(
  frames: FieldMotion[][],
  chunkFrames: number,
  heightPx: number,
  halfWindow = 6,
): number {
  if (chunkFrames <= 0 || frames.length <= chunkFrames) {
    return shakeRatio(frames, heightPx, halfWindow);
  }
  let weighted = 0;
  let counted = 0;
  for (let from = 0; from < frames.length; from += chunkFrames) {
    const chunk = frames.slice(from, from + chunkFrames);
    // An excerpt's first motion is measured against the previous excerpt's last frame.
    if (from > 0) chunk[0] = [];
    weighted += shakeRatio(chunk, heightPx, halfWindow) * chunk.length;
    counted += chunk.length;
  }
  return counted ? weighted / counted : 0;
}

/**
 * A block with the Hann window applied, once: the 88 Goertzel runs over it then read it as it
 * is (computing the window inside each run cost 1M cosines, ≈ 11 ms of Node's CPU on 6 s of
 * excerpts, now ≈ 3 ms; the products are the same, so the powers are too, to the bit).
 */
function hannWindowed(block: Float32Array): Float64Array {
  const n = block.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
    out[i] = f32At(block, i) * w;
  }
  return out;
}

/** Power at `freqHz` of a windowed block (Goertzel). */
function goertzelPower(windowed: Float64Array, sampleRate: number, freqHz: number): number {
  const n = windowed.length;
  const coeff = 2 * Math.cos((2 * Math.PI * freqHz) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const s0 = f64At(windowed, i) + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coeff * s1 * s2;
}

/**
 * How far the mains harmonics (1st–4th) of 50 Hz and of 60 Hz stand above nearby frequencies,
 * in dB: the mean of the two strongest harmonics, averaged over 1 s blocks (1 Hz resolution).
 */
export function humProminence(
  samples: Float32Array,
  sampleRate: number,
): { db50: number; db60: number } {
  return humProminenceOf([samples], sampleRate);
}

/**
 * `humProminence` over several excerpts of one track: blocks never straddle two excerpts (the
 * hum's phase jumps between them), and every block counts alike.
 */
export function humProminenceOf(
  excerpts: Float32Array[],
  sampleRate: number,
): { db50: number; db60: number } {
  const blockLen = Math.round(sampleRate);
  const blocks: Float64Array[] = [];
  for (const samples of excerpts) {
    const n = Math.floor(samples.length / blockLen);
    for (let b = 0; b < n; b++) {
      blocks.push(hannWindowed(samples.subarray(b * blockLen, (b + 1) * blockLen)));
    }
  }
  const offsets = [-7, -6, -5, -4, -3, 3, 4, 5, 6, 7];
  const score = (f0: number): number => {
    if (blocks.length === 0) return 0;
    const prominences: number[] = [];
    for (let k = 1; k <= 4; k++) {
      const f = f0 * k;
      if (f + 8 >= sampleRate / 2) break;
      let peak = 0;
      const around = offsets.map(() => 0);
      for (const block of blocks) {
        peak += goertzelPower(block, sampleRate, f);
        offsets.forEach((o, i) => {
          around[i] = at(around, i) + goertzelPower(block, sampleRate, f + o);
        });
      }
      const floor = median(around) + 1e-12;
      prominences.push(10 * Math.log10((peak + 1e-12) / floor));
    }
    prominences.sort((a, b) => b - a);
    const top = prominences.slice(0, 2);
    return top.length ? top.reduce((a, b) => a + b, 0) / top.length : 0;
  };
  return { db50: score(50), db60: score(60) };
}

/** Below this loudness range loudnorm's linear pass reads "not measured" (see parseEbur128). */
const LEAST_LRA = 0.05;

/**
 * The ebur128 filter's closing summary (EBU R128 by ITU-R BS.1770: integrated loudness and its
 * relative gate, loudness range, true peak) as the measurement loudnorm's linear pass takes;
 * null when absent or the sound is silent (no peak). ebur128 prints tenths, so a range under
 * 0.05 LU reads 0.0, which loudnorm takes for "not given" (and leaves its linear mode for): it
 * is passed as 0.05. `targetOffset` is 0: it only tunes loudnorm's dynamic mode.
 */
export function parseEbur128(stderr: string): LoudnessMeasurement | null {
  const at = stderr.lastIndexOf("Summary:");
  if (at < 0) return null;
  const summary = stderr.slice(at);
  const integrated = /\bI:\s+(\S+) LUFS\s+Threshold:\s+(\S+) LUFS/.exec(summary);
  const range = /\bLRA:\s+(\S+) LU\b/.exec(summary);
  const peak = /\bPeak:\s+(\S+) dBFS/.exec(summary);
  // A missing figure reads Number(undefined), "-inf" Number("-inf"): both NaN.
  const inputI = Number(integrated?.[1]);
  const inputThresh = Number(integrated?.[2]);
  const inputLra = Number(range?.[1]);
  const inputTp = Number(peak?.[1]);
  if (![inputI, inputThresh, inputLra, inputTp].every(Number.isFinite)) return null;
  return {
    inputI,
    inputTp,
    inputLra: Math.max(LEAST_LRA, inputLra),
    inputThresh,
    targetOffset: 0,
  };
}

/**
 * How the benchmark damages a clean 50p pan into what a customer uploads: digitised PAL tape
 * (720×576, 4:3 with 16:15 pixels, BT.601, 25 frames or 50 fields a second, MPEG-2), each
 * defect on its own and all of them together, each in several strengths (a rule tuned on one
 * strength of one defect must hold on the others). Audio: a quiet tone bed with a click every
 * half second (to measure sync to the sample), plus mains hum where tape would have it.
 */
import { runFfmpeg } from "../../src/engines/ffmpeg.js";

/** What kind of damage, for the tables: every variant of one kind is reported together. */
export type Family =
  | "clean"
  | "fade"
  | "noise"
  | "blur"
  | "lowres"
  | "interlaced"
  | "slip"
  | "blocking"
  | "tape"
  | "dropout";

export type TapeSize = { width: number; height: number; sar: string };

export const SD: TapeSize = { width: 720, height: 576, sar: "16/15" };

/** One tape dropout: a bright streak over `lines` lines of one 25p frame, as shares of the size. */
export interface Streak {
  /** The 25p frame (the progressive frame, or the interlaced frame whose field it hits). */
  frame: number;
  y: number;
  x: number;
  w: number;
  lines: number;
}

export interface Degradation {
  name: string;
  family: Family;
  /** What it imitates, for the report. */
  label: string;
  /** Filters on the 50p picture at tape size (after the BT.601 scale), before the frame-rate step. */
  picture: (size: TapeSize, seconds: number) => string[];
  /** "progressive" keeps the even frames; tff/bff weaves two 50p frames into one 25i frame. */
  scan: "progressive" | "tff" | "bff";
  /** MPEG-2 video bitrate at full PAL size, kbit/s. */
  kbps: number;
  hum: boolean;
  /** The tape dropouts drawn, when there are any (the per-frame check reads their frames). */
  streaks?: (seconds: number) => Streak[];
}

/** Faded dyes or a worn tape: blacks lifted to `black`, whites down to `white`, colour × `sat`. */
export function fade(black: number, white: number, sat: number): string {
  const gain = (white - black) / 219;
  const chroma = `'clip(128+(val-128)*${sat},0,255)'`;
  return `lutyuv=y='clip(${black}+(val-16)*${gain.toFixed(4)},0,255)':u=${chroma}:v=${chroma}`;
}

/**
 * Grain of standard deviation `lumaSigma` / `chromaSigma` (8-bit codes), Gaussian, changing every
 * field; `size` > 1 makes it coarse (drawn at 1/size and enlarged: film grain, a worn tape).
 */
export function grain(lumaSigma: number, chromaSigma: number, size = 1): string {
  // The noise filter's Gaussian strength s gives σ ≈ 0.65 s (measured on flat grey).
  const s = (sigma: number) => Math.round((sigma / 0.65) * size ** 0.7);
  const noise = `noise=c0s=${s(lumaSigma)}:c0f=t:c1s=${s(chromaSigma)}:c1f=t:c2s=${s(chromaSigma)}:c2f=t`;
  if (size <= 1) return noise;
  // Enlarging averages neighbouring draws: the strength is raised by size^0.7 to keep σ.
  const g = `lutyuv=y=128:u=128:v=128,scale=iw/${size}:ih/${size},${noise},scale=iw*${size}:ih*${size}:flags=bicubic`;
  return `split[pic][gr];[gr]${g}[g];[pic][g]blend=all_mode=grainmerge`;
}

/** Colour slipped right by `px` picture pixels (even), smeared by a bleed of `bleed` (σ, px). */
export function slip(px: number, bleed: number): string[] {
  const out: string[] = [];
  if (bleed > 0) out.push(`gblur=sigma=${bleed}:sigmaV=0.7:planes=6`);
  if (px > 0) out.push(`chromashift=cbh=${px / 2}:crh=${px / 2}:edge=smear`);
  return out;
}

/** A small deterministic generator (the same streaks on every run). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Dropout streaks: every ~0.5 s (never on neighbouring frames, so the frames before and after
 * are whole), one to three streaks a frame, 1–3 lines high, a tenth to half the width.
 */
export function dropoutStreaks(seed: number): (seconds: number) => Streak[] {
  return (seconds) => {
    const rand = seeded(seed);
    const out: Streak[] = [];
    const frames = Math.floor(seconds * 25);
    for (let f = 6 + Math.floor(rand() * 4); f < frames - 3; f += 10 + Math.floor(rand() * 6)) {
      const count = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < count; k++) {
        out.push({
          frame: f,
          y: 0.08 + 0.84 * rand(),
          x: 0.6 * rand(),
          w: 0.1 + 0.4 * rand(),
          lines: 1 + Math.floor(rand() * 3),
        });
      }
    }
    return out;
  };
}

/** drawbox filters for `streaks`, on the 50p frames that become their 25p frames' (first) field. */
function streakFilters(streaks: Streak[], size: TapeSize): string[] {
  return streaks.map((s) => {
    const lines = Math.max(1, Math.round((s.lines * size.height) / SD.height));
    const box = `x=${Math.round(s.x * size.width)}:y=${Math.round(s.y * size.height)}:w=${Math.round(s.w * size.width)}:h=${lines}`;
    return `drawbox=${box}:color=white@0.9:t=fill:enable='eq(n,${2 * s.frame})'`;
  });
}

const lowres = (factor: number) => (size: TapeSize) => [
  `scale=${Math.round(size.width / factor / 2) * 2}:${Math.round(size.height / factor / 2) * 2}:flags=area`,
  `scale=${size.width}:${size.height}:flags=bilinear`,
];

/** A grain, blur and bleed given at full PAL size, for a tape of `size`. */
const at = (size: TapeSize, px: number) => (px * size.width) / SD.width;

interface TapeRecipe {
  blur: number;
  bleed: number;
  slipPx: number;
  fade: [number, number, number];
  grain: [number, number, number];
}

/** Combined tape damage: soft, bleeding, slipped, faded, grainy (in the order tape adds them). */
function tape(r: TapeRecipe): (size: TapeSize) => string[] {
  return (size) => [
    `gblur=sigma=${at(size, r.blur).toFixed(2)}`,
    ...slip(Math.max(0, Math.round(at(size, r.slipPx) / 2) * 2), at(size, r.bleed)),
    fade(...r.fade),
    grain(r.grain[0], r.grain[1], r.grain[2]),
  ];
}

const variant = (
  name: string,
  family: Family,
  label: string,
  picture: Degradation["picture"],
  more: Partial<Degradation> = {},
): Degradation => ({
  name,
  family,
  label,
  picture,
  scan: "progressive",
  kbps: 8000,
  hum: false,
  ...more,
});

const none = () => [];

export const DEGRADATIONS: Degradation[] = [
  variant("clean", "clean", "clean SD (DVD-grade MPEG-2)", none),
  // Fades at several black and white levels; colour paled with them.
  ...(
    [
      [20, 215, 0.7],
      [24, 200, 0.65],
      [32, 220, 0.75],
      [36, 190, 0.6],
      [44, 200, 0.6],
      [52, 205, 0.7],
      [60, 225, 0.8],
      [60, 185, 0.6],
    ] as const
  ).map(([b, w, s]) =>
    variant(`fade-${b}-${w}`, "fade", `faded: blacks ${b}, whites ${w}, colour ×${s}`, () => [
      fade(b, w, s),
    ]),
  ),
  // Grain of several sizes and strengths (a capture card's rate keeps it).
  ...(
    [
      [4, 5, 1],
      [7, 8, 1],
      [10, 10, 1],
      [8, 10, 2],
      [10, 12, 3],
    ] as const
  ).map(([y, c, size]) =>
    variant(
      `grain-${y}${size > 1 ? `-x${size}` : ""}`,
      "noise",
      `grain σ ${y} (colour ${c})${size > 1 ? `, ${size} px grains` : ""}, 50 Hz hum`,
      (s) => [grain(y, c, at(s, size) > 1 ? Math.round(at(s, size)) : 1)],
      { kbps: 15000, hum: true },
    ),
  ),
  ...[0.9, 1.3, 1.8].map((sigma) =>
    variant(`blur-${sigma}`, "blur", `soft (σ ${sigma} px): worn tape, poor focus`, (s) => [
      `gblur=sigma=${at(s, sigma).toFixed(2)}`,
    ]),
  ),
  ...[2, 1.5].map((f) =>
    variant(`lowres-${f}`, "lowres", `low resolution (1/${f} of the lines, VHS-like)`, lowres(f)),
  ),
  variant("interlaced-tff", "interlaced", "interlaced, top field first", none, { scan: "tff" }),
  variant("interlaced-bff", "interlaced", "interlaced, bottom field first", none, { scan: "bff" }),
  // Colour slipped right by 2–8 picture pixels, with and without bleed.
  ...(
    [
      [2, 0],
      [2, 3],
      [4, 0],
      [4, 4],
      [6, 0],
      [6, 5],
      [8, 0],
      [8, 5],
    ] as const
  ).map(([px, bleed]) =>
    variant(
      `slip-${px}${bleed ? "-bled" : ""}`,
      "slip",
      `colour ${px} px right${bleed ? `, bled (σ ${bleed} px)` : ""}`,
      (s) => slip(Math.round(at(s, px) / 2) * 2, at(s, bleed)),
    ),
  ),
  ...[800, 1200, 2000].map((k) =>
    variant(`blocking-${k}`, "blocking", `MPEG-2 at ${k / 1000} Mbit/s (blocking)`, none, {
      kbps: k,
    }),
  ),
  variant(
    "tape-a",
    "tape",
    "VHS: BFF, soft, bled, slipped 6 px, faded (37–205), grain σ 9, hum",
    tape({ blur: 0.9, bleed: 4, slipPx: 6, fade: [37, 205, 0.75], grain: [9, 12, 1] }),
    { scan: "bff", kbps: 12000, hum: true },
  ),
  variant(
    "tape-b",
    "tape",
    "VHS: BFF, soft, bled, slipped 4 px, faded (48–196), coarse grain σ 7, hum",
    tape({ blur: 1.1, bleed: 3, slipPx: 4, fade: [48, 196, 0.7], grain: [7, 9, 2] }),
    { scan: "bff", kbps: 12000, hum: true },
  ),
  variant(
    "tape-c",
    "tape",
    "Video8: TFF, soft, bled, slipped 2 px, faded (28–215), grain σ 6, hum",
    tape({ blur: 0.8, bleed: 3, slipPx: 2, fade: [28, 215, 0.8], grain: [6, 8, 1] }),
    { scan: "tff", kbps: 12000, hum: true },
  ),
  variant(
    "dropouts",
    "dropout",
    "tape dropouts: white streaks of 1–3 lines on single frames",
    (size, seconds) => streakFilters(dropoutStreaks(7)(seconds), size),
    { streaks: dropoutStreaks(7) },
  ),
  variant(
    "dropouts-grain",
    "dropout",
    "tape dropouts on a grainy, soft tape (σ 6, blur 0.8)",
    (size, seconds) => [
      `gblur=sigma=${at(size, 0.8).toFixed(2)}`,
      grain(6, 8, 1),
      ...streakFilters(dropoutStreaks(11)(seconds), size),
    ],
    { streaks: dropoutStreaks(11), kbps: 12000 },
  ),
];

/** The variant called `name`; throws on a name that is not one. */
export function damage(name: string): Degradation {
  const d = DEGRADATIONS.find((x) => x.name === name);
  if (!d) throw new Error(`no degradation ${name}`);
  return d;
}

/**
 * Where the clicks are: about every half second, unevenly (a strict 2 Hz train would have
 * harmonics on 50 and 60 Hz and pass for mains hum).
 */
export function clickTimes(seconds: number): number[] {
  const times: number[] = [];
  for (let k = 0; 0.25 + 0.5 * k < seconds - 0.3; k++) {
    times.push(Math.round((0.25 + 0.5 * k + 0.037 * ((k * 7) % 5)) * 1000) / 1000);
  }
  return times;
}

/** The clean sound: a quiet chord, a 1 ms click at each of `clickTimes`, and hum when asked. */
export function soundExpression(hum: boolean, seconds: number): string {
  const bed = "0.03*sin(2*PI*330*t)+0.02*sin(2*PI*495*t)";
  const clicks = clickTimes(seconds).map((t) => `between(t,${t},${t + 0.001})`);
  const mains = hum ? "+0.06*sin(2*PI*50*t)+0.03*sin(2*PI*150*t)+0.015*sin(2*PI*250*t)" : "";
  return `${bed}+0.6*(${clicks.join("+")})${mains}`;
}

/** The whole video chain: SD in BT.601, the defects, then the frame-rate or field step. */
export function degradeFilter(d: Degradation, size: TapeSize = SD, seconds = 4): string {
  const sd = `zscale=w=${size.width}:h=${size.height}:filter=lanczos:matrixin=709:matrix=470bg,format=yuv420p`;
  const scan =
    d.scan === "progressive" ? "framestep=2" : `interlace=scan=${d.scan}:lowpass=complex`;
  return [sd, ...d.picture(size, seconds), scan, `setsar=${size.sar}`].join(",");
}

/**
 * Writes the damaged upload: MPEG-2 (interlaced coding and the field order flagged in the
 * stream for scanned tape) + 48 kHz PCM in Matroska, tagged BT.601 like a PAL capture.
 */
export async function degrade(
  d: Degradation,
  field50: string,
  out: string,
  seconds: number,
  size: TapeSize = SD,
): Promise<string> {
  const args = [
    "-y",
    "-i",
    field50,
    "-f",
    "lavfi",
    "-i",
    `aevalsrc='${soundExpression(d.hum, seconds)}':s=48000:c=stereo:d=${seconds}`,
  ];
  const vf = degradeFilter(d, size, seconds);
  args.push("-map", "0:v", "-map", "1:a", "-vf", vf, "-c:v", "mpeg2video");
  // Bits per pixel as at full PAL size, so a smaller tape is damaged alike.
  const k = Math.round((d.kbps * size.width * size.height) / (SD.width * SD.height));
  args.push(
    "-b:v",
    `${k}k`,
    "-maxrate",
    `${Math.round(k * 1.25)}k`,
    "-bufsize",
    `${Math.round(k * 0.5)}k`,
  );
  args.push("-g", "12", "-bf", "2");
  if (d.scan !== "progressive") {
    args.push("-flags", "+ilme+ildct", "-top", d.scan === "tff" ? "1" : "0");
  }
  args.push("-colorspace", "bt470bg", "-color_primaries", "bt470bg", "-color_trc", "gamma28");
  args.push("-c:a", "pcm_s16le", "-shortest", out);
  await runFfmpeg(args);
  return out;
}

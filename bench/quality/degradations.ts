/**
 * How the benchmark damages a clean 50p pan into what a customer uploads: digitised PAL tape
 * (720×576, 4:3 with 16:15 pixels, BT.601, 25 frames or 50 fields a second, MPEG-2), each
 * defect on its own and all of them together. Audio: a quiet tone bed with a click every half
 * second (to measure sync to the sample), plus mains hum where tape would have it.
 */
import { runFfmpeg } from "../../src/engines/ffmpeg.js";

export interface Degradation {
  name: string;
  /** What it imitates, for the report. */
  label: string;
  /** Filters on the 50p SD picture (after scaling to 720×576), before the frame-rate step. */
  picture: string[];
  /** "progressive" keeps the even frames; tff/bff weaves two 50p frames into one 25i frame. */
  scan: "progressive" | "tff" | "bff";
  /** MPEG-2 video bitrate, kbit/s. */
  kbps: number;
  hum: boolean;
}

export const SD = { width: 720, height: 576, sar: "16/15" } as const;

export const DEGRADATIONS: Degradation[] = [
  {
    name: "clean",
    label: "clean SD (DVD-grade MPEG-2)",
    picture: [],
    scan: "progressive",
    kbps: 8000,
    hum: false,
  },
  {
    name: "noise",
    label: "tape/sensor noise, luma and chroma, and 50 Hz hum",
    picture: ["noise=c0s=20:c0f=t+u:c1s=24:c1f=t+u:c2s=24:c2f=t+u"],
    scan: "progressive",
    // A capture card's rate: at DVD rates MPEG-2 would quantise most of the grain away.
    kbps: 15000,
    hum: true,
  },
  {
    name: "blur",
    label: "soft (worn tape, poor focus)",
    picture: ["gblur=sigma=1.3"],
    scan: "progressive",
    kbps: 8000,
    hum: false,
  },
  {
    name: "lowres",
    label: "low resolution (VHS luma bandwidth, ~360 lines)",
    picture: ["scale=360:288:flags=area", `scale=${SD.width}:${SD.height}:flags=bilinear`],
    scan: "progressive",
    kbps: 8000,
    hum: false,
  },
  {
    name: "interlaced",
    label: "interlaced, top field first",
    picture: [],
    scan: "tff",
    kbps: 8000,
    hum: false,
  },
  {
    name: "chroma",
    label: "chroma bleed (smeared) and shifted right",
    picture: ["gblur=sigma=5:sigmaV=0.7:planes=6", "chromashift=cbh=4:crh=4:edge=smear"],
    scan: "progressive",
    kbps: 8000,
    hum: false,
  },
  {
    name: "blocking",
    label: "low-bitrate MPEG-2 (blocking)",
    picture: [],
    scan: "progressive",
    kbps: 1200,
    hum: false,
  },
  {
    name: "faded",
    label: "faded: lifted blacks, low contrast, washed-out colour",
    picture: ["eq=contrast=0.7:brightness=0.08:saturation=0.6"],
    scan: "progressive",
    kbps: 8000,
    hum: false,
  },
  {
    name: "vhs",
    label: "VHS: bottom field first, soft, noisy, bleeding, faded, hum",
    picture: [
      "gblur=sigma=0.9",
      "gblur=sigma=4:sigmaV=0.7:planes=6",
      "chromashift=cbh=3:crh=3:edge=smear",
      "eq=contrast=0.8:brightness=0.05:saturation=0.75",
      "noise=c0s=14:c0f=t+u:c1s=20:c1f=t+u:c2s=20:c2f=t+u",
    ],
    scan: "bff",
    kbps: 12000,
    hum: true,
  },
];

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

export type TapeSize = { width: number; height: number; sar: string };

/** The whole video chain: SD in BT.601, the defects, then the frame-rate or field step. */
export function degradeFilter(d: Degradation, size: TapeSize = SD): string {
  const sd = `zscale=w=${size.width}:h=${size.height}:filter=lanczos:matrixin=709:matrix=470bg,format=yuv420p`;
  const picture = d.picture.map((f) =>
    f.replaceAll(`${SD.width}:${SD.height}`, `${size.width}:${size.height}`),
  );
  const scan =
    d.scan === "progressive" ? "framestep=2" : `interlace=scan=${d.scan}:lowpass=complex`;
  return [sd, ...picture, scan, `setsar=${size.sar}`].join(",");
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
  args.push("-map", "0:v", "-map", "1:a", "-vf", degradeFilter(d, size), "-c:v", "mpeg2video");
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

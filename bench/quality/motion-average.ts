/**
 * How much the engine's motion-following temporal average adds to Studio Max's non-local means
 * on one damaged cell, outside the engine (docs/restore.md, "A motion-following average"; it was
 * first measured here, then moved into src/engines/restore/motion-average.ts, which this calls),
 * on luma only, at SD:
 *
 * 1. the guide: the damaged clip through ffmpeg's nlmeans at `strength` (Studio Max's filter);
 * 2. for every 8×8 block (every 4 px, overlapping) of frame t, the best match in frames t±1
 *    and t±2 on the guide (the engine's search: NEAR_RANGE, FAR_RANGE);
 * 3. the damaged pixels of the matched blocks averaged with frame t's own, each neighbour
 *    weighted exp(−msd / threshold²) by how far its guide block is from t's (occlusions and
 *    cuts weigh nothing), overlapping blocks averaged;
 * 4. nlmeans again at `final` × strength on the average.
 *
 * Scored against the reference scaled to SD (lanczos): mean luma PSNR of the frames.
 * Usage: npx tsx bench/quality/motion-average.ts <damaged> <reference 25p> [strength 19.552]
 *   [threshold 40] [finals 0.4,0.6]   (FRAMES=n: the first n frames only; default 75)
 * The cells are in the bench's cache after a run (`BENCH_QUALITY_OUT=dir … --contenders input`).
 */
import { execFileSync } from "node:child_process";
import { averageLuma } from "../../src/engines/restore/motion-average.js";

const W = 720;
const H = 576;
const SIZE = W * H;

const [damaged, reference, strengthArg, thresholdArg, finalsArg] = process.argv.slice(2);
if (!damaged || !reference) throw new Error("usage: <damaged> <reference> [strength] [threshold]");
const FRAMES = Number(process.env.FRAMES ?? 75);
const strength = Number(strengthArg ?? 19.552);
const threshold = Number(thresholdArg ?? 40);
const finals = (finalsArg ?? "0.4,0.6").split(",").map(Number);

function toFrames(raw: Buffer): Uint8Array[] {
  return Array.from({ length: FRAMES }, (_, i) =>
    Uint8Array.from(raw.subarray(i * SIZE, (i + 1) * SIZE)),
  );
}

function grey(args: string[], input?: Buffer): Uint8Array[] {
  const out = ["-v", "error", ...args, "-frames:v", String(FRAMES), "-f", "rawvideo"];
  const raw = execFileSync("ffmpeg", [...out, "-pix_fmt", "gray", "-"], {
    input,
    maxBuffer: 1 << 30,
  });
  return toFrames(raw);
}

function nlmeans(frames: Uint8Array[], s: number): Uint8Array[] {
  const raw = Buffer.concat(frames);
  const input = ["-f", "rawvideo", "-pix_fmt", "gray", "-s", `${W}x${H}`, "-r", "25", "-i", "-"];
  return grey([...input, "-vf", `nlmeans=s=${s}:p=11:r=15`], raw);
}

const noisy = grey(["-i", damaged]);
const ref = grey(["-i", reference, "-vf", `scale=${W}:${H}:flags=lanczos`]);

function psnr(frames: Uint8Array[]): string {
  let sum = 0;
  frames.forEach((f, i) => {
    const r = ref[i] as Uint8Array;
    let err = 0;
    for (let k = 0; k < SIZE; k++) {
      const d = (f[k] ?? 0) - (r[k] ?? 0);
      err += d * d;
    }
    sum += 10 * Math.log10((255 * 255) / (err / SIZE));
  });
  return (sum / frames.length).toFixed(3);
}

/** The engine's average (src/engines/restore/motion-average.ts) of every frame, t−2 … t+2. */
function motionAverage(guide: Uint8Array[]): Uint8Array[] {
  const pairs = noisy.map((frame, i) => ({ noisy: frame, guide: guide[i] as Uint8Array }));
  return pairs.map((_, t) =>
    averageLuma(
      [-2, -1, 0, 1, 2].map((d) => pairs[t + d] ?? null),
      { width: W, height: H, threshold },
    ),
  );
}

console.log(`damaged as is ${psnr(noisy)}`);
const guide = nlmeans(noisy, strength);
console.log(`nlmeans s=${strength} ${psnr(guide)}`);
const started = performance.now();
const averaged = motionAverage(guide);
const sec = (performance.now() - started) / 1000;
console.log(`motion-following average ${psnr(averaged)} (${(sec / FRAMES).toFixed(2)} s a frame)`);
for (const f of finals) {
  const s = Number((strength * f).toFixed(2));
  console.log(`  then nlmeans s=${s} ${psnr(nlmeans(averaged, s))}`);
}

/**
 * An experiment, not the engine: how much a motion-following temporal average would add to
 * Studio Max's non-local means on coarse grain (docs/restore.md, "A motion-following average").
 * ffmpeg 5.1 has no motion-compensated denoiser, so this one runs here, on luma only, at SD:
 *
 * 1. the guide: the damaged clip through ffmpeg's nlmeans at `strength` (Studio Max's filter);
 * 2. for every 8×8 block (every 4 px, overlapping) of frame t, the best match in frames t±1
 *    (±4 px, full search on the guide) and t±2 (±2 px around twice t±1's vector);
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

const W = 720;
const H = 576;
const SIZE = W * H;
const BLOCK = 8;
const STEP = 4;

const [damaged, reference, strengthArg, thresholdArg, finalsArg] = process.argv.slice(2);
if (!damaged || !reference) throw new Error("usage: <damaged> <reference> [strength] [threshold]");
const FRAMES = Number(process.env.FRAMES ?? 75);
const strength = Number(strengthArg ?? 19.552);
const threshold = Number(thresholdArg ?? 40);
const finals = (finalsArg ?? "0.4,0.6").split(",").map(Number);

function toFrames(raw: Buffer): Float32Array[] {
  return Array.from({ length: FRAMES }, (_, i) =>
    Float32Array.from(raw.subarray(i * SIZE, (i + 1) * SIZE)),
  );
}

function grey(args: string[], input?: Buffer): Float32Array[] {
  const out = ["-v", "error", ...args, "-frames:v", String(FRAMES), "-f", "rawvideo"];
  const raw = execFileSync("ffmpeg", [...out, "-pix_fmt", "gray", "-"], {
    input,
    maxBuffer: 1 << 30,
  });
  return toFrames(raw);
}

function nlmeans(frames: Float32Array[], s: number): Float32Array[] {
  const raw = Buffer.alloc(FRAMES * SIZE);
  frames.forEach((f, i) => {
    for (let k = 0; k < SIZE; k++) raw[i * SIZE + k] = Math.round(f[k] ?? 0);
  });
  const input = ["-f", "rawvideo", "-pix_fmt", "gray", "-s", `${W}x${H}`, "-r", "25", "-i", "-"];
  return grey([...input, "-vf", `nlmeans=s=${s}:p=11:r=15`], raw);
}

const noisy = grey(["-i", damaged]);
const ref = grey(["-i", reference, "-vf", `scale=${W}:${H}:flags=lanczos`]);

function psnr(frames: Float32Array[]): string {
  let sum = 0;
  frames.forEach((f, i) => {
    const r = ref[i] as Float32Array;
    let err = 0;
    for (let k = 0; k < SIZE; k++) {
      const d = Math.round(Math.min(255, Math.max(0, f[k] ?? 0))) - (r[k] ?? 0);
      err += d * d;
    }
    sum += 10 * Math.log10((255 * 255) / (err / SIZE));
  });
  return (sum / frames.length).toFixed(3);
}

/** Best offset of block (bx, by) of g0 in g1 within ±r of (px, py); and its mean squared error. */
function match(g0: Float32Array, g1: Float32Array, bx: number, by: number, p: number[], r: number) {
  const [px = 0, py = 0] = p;
  let best = Number.POSITIVE_INFINITY;
  let found = [0, 0];
  for (let dy = py - r; dy <= py + r; dy++) {
    for (let dx = px - r; dx <= px + r; dx++) {
      const x = bx + dx;
      const y = by + dy;
      if (x < 0 || y < 0 || x + BLOCK > W || y + BLOCK > H) continue;
      let s = 0;
      for (let j = 0; j < BLOCK && s < best; j++) {
        const o0 = (by + j) * W + bx;
        const o1 = (y + j) * W + x;
        for (let i = 0; i < BLOCK; i++) {
          const d = (g0[o0 + i] ?? 0) - (g1[o1 + i] ?? 0);
          s += d * d;
        }
      }
      if (s < best) {
        best = s;
        found = [dx, dy];
      }
    }
  }
  return { offset: found, msd: best / (BLOCK * BLOCK) };
}

function motionAverage(guide: Float32Array[]): Float32Array[] {
  return noisy.map((frame, t) => {
    const acc = new Float32Array(SIZE);
    const weights = new Float32Array(SIZE);
    const g0 = guide[t] as Float32Array;
    const add = (from: Float32Array, w: number, bx: number, by: number, dx: number, dy: number) => {
      for (let j = 0; j < BLOCK; j++) {
        for (let i = 0; i < BLOCK; i++) {
          const o = (by + j) * W + bx + i;
          acc[o] = (acc[o] ?? 0) + w * (from[(by + dy + j) * W + bx + dx + i] ?? 0);
          weights[o] = (weights[o] ?? 0) + w;
        }
      }
    };
    for (let by = 0; by + BLOCK <= H; by += STEP) {
      for (let bx = 0; bx + BLOCK <= W; bx += STEP) {
        add(frame, 1, bx, by, 0, 0);
        for (const side of [1, -1]) {
          let near = [0, 0];
          for (const d of [side, 2 * side]) {
            const n = t + d;
            const g1 = guide[n];
            const other = noisy[n];
            if (!g1 || !other) continue;
            const far = Math.abs(d) === 2;
            const m = far
              ? match(g0, g1, bx, by, [(near[0] ?? 0) * 2, (near[1] ?? 0) * 2], 2)
              : match(g0, g1, bx, by, [0, 0], 4);
            if (!far) near = m.offset;
            const w = Math.exp(-m.msd / (threshold * threshold));
            if (w >= 0.05) add(other, w, bx, by, m.offset[0] ?? 0, m.offset[1] ?? 0);
          }
        }
      }
    }
    return acc.map((a, k) => ((weights[k] ?? 0) > 0 ? a / (weights[k] ?? 1) : (frame[k] ?? 0)));
  });
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

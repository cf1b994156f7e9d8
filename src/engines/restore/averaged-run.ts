/**
 * Runs Studio Max's averaged picture pass (chain-average.ts): the front ffmpeg's stacked raw
 * frames (noisy picture above, its non-local-means guide below) are averaged along the motion
 * (motion-average.ts) as soon as the two frames after each have arrived, and written to the
 * back ffmpeg, which finishes the chain and encodes. Both pipes hold back (a full pipe stops
 * the writer), so neither process runs ahead of the average by more than a few frames.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { ffmpegBinaries, mediaProcessEnv } from "../ffmpeg.js";
import type { AveragedPass } from "./chain-average.js";
import { averageLuma, type LumaPair } from "./motion-average.js";
import { ffmpegFailure } from "./run.js";

/** The stderr kept per process: its end says why it failed; the back's says where it ended. */
const STDERR_CAP = 1 << 20;

interface Exit {
  code: number;
  stderr: string;
}

/** Starts one ffmpeg; its exit (code and stderr's tail) as a promise that never rejects. */
function start(
  args: string[],
  stdio: ["ignore", "pipe", "pipe"] | ["pipe", "ignore", "pipe"],
  signal: AbortSignal | undefined,
  onStderr?: (chunk: string) => void,
): { child: ChildProcess; exit: Promise<Exit> } {
  const env = { ...process.env, ...mediaProcessEnv() };
  const child = spawn(ffmpegBinaries().ffmpeg, ["-hide_banner", ...args], { stdio, env, signal });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    onStderr?.(d);
    stderr += d;
    if (stderr.length > STDERR_CAP) stderr = stderr.slice(-STDERR_CAP / 2);
  });
  const exit = new Promise<Exit>((resolve) => {
    // An abort kills the child and reports it here as an error; the close still follows.
    child.on("error", () => {});
    child.on("close", (code) => resolve({ code: code ?? -1, stderr }));
  });
  return { child, exit };
}

/** The encoding ffmpeg took no more frames. */
class BackClosed extends Error {
  constructor() {
    super("the encoding ffmpeg has exited");
  }
}

/** One stacked frame cut into what the average reads and what goes on untouched. */
interface Stacked extends LumaPair {
  /** The guide's U and V planes: the colour the one-process chain delivers. */
  colour: Buffer;
}

function split(frame: Buffer, width: number, height: number): Stacked {
  const y = width * height;
  const c = y / 4;
  // Stacked yuv420p, 2 × height rows: each plane holds the noisy picture's rows, then the guide's.
  return {
    noisy: frame.subarray(0, y),
    guide: frame.subarray(y, 2 * y),
    colour: Buffer.concat([
      frame.subarray(2 * y + c, 2 * y + 2 * c),
      frame.subarray(2 * y + 3 * c, 2 * y + 4 * c),
    ]),
  };
}

/** What the pass's processes printed, and the time the average took on this thread. */
export interface AveragedRun {
  /** The back ffmpeg's stderr (its `-progress` lines say where the timeline ended). */
  stderr: string;
  frontStderr: string;
  averageSec: number;
}

/**
 * Runs the pass. An abort kills both processes and rejects with the signal's reason; a
 * failure of either stops the other and rejects with the front's error first (it read the
 * input), as `runFfmpegForMedia` would.
 */
export async function runAveragedPass(
  pass: AveragedPass,
  opts: { signal?: AbortSignal; onStderr?: (chunk: string) => void } = {},
): Promise<AveragedRun> {
  const { signal } = opts;
  signal?.throwIfAborted();
  const { width, height, threshold } = pass;
  const front = start(["-nostdin", ...pass.front], ["ignore", "pipe", "pipe"], signal);
  const back = start(pass.back, ["pipe", "ignore", "pipe"], signal, opts.onStderr);
  const stdin = back.child.stdin;
  const stdout = front.child.stdout;
  if (!stdin || !stdout) throw new Error("ffmpeg started without its pipes");
  // A back that exits early makes writes fail (EPIPE): the exit code tells why.
  stdin.on("error", () => {});
  let backGone = false;
  void back.exit.then(() => {
    backGone = true;
  });
  // A back that closed its input has all it wants (a segment's trim ends it before the front
  // runs dry) or failed: its exit code says which. A destroyed pipe never drains or closes
  // again, so it is checked before every write and on every wake-up.
  const closed = () => backGone || stdin.destroyed || !stdin.writable;
  const write = (buf: Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      if (closed()) return reject(new BackClosed());
      if (stdin.write(buf)) return resolve();
      const done = () => {
        stdin.off("drain", done);
        stdin.off("close", done);
        closed() ? reject(new BackClosed()) : resolve();
      };
      stdin.once("drain", done);
      stdin.once("close", done);
    });

  const stackedBytes = width * height * 3;
  const frames: Array<Stacked | undefined> = [];
  let next = 0;
  let averageMs = 0;
  const emit = async () => {
    const window = [-2, -1, 0, 1, 2].map((d) => frames[next + d] ?? null);
    // cast: emit runs only while next < frames.length, and frames before next-2 are the only ones cleared
    const centre = frames[next] as Stacked;
    const t0 = performance.now();
    const luma = averageLuma(window, { width, height, threshold });
    averageMs += performance.now() - t0;
    // Only the two frames before the next one's are read again.
    frames[next - 2] = undefined;
    next++;
    await write(Buffer.concat([luma, centre.colour]));
  };
  try {
    // The pipe's chunks (64 KiB) gathered until a whole stacked frame is there.
    let chunks: Buffer[] = [];
    let have = 0;
    // cast: spawned with stdio "pipe", so stdout is a Readable of Buffers
    for await (const chunk of stdout as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      have += chunk.length;
      while (have >= stackedBytes) {
        const all = Buffer.concat(chunks, have);
        frames.push(split(all.subarray(0, stackedBytes), width, height));
        chunks = have > stackedBytes ? [all.subarray(stackedBytes)] : [];
        have -= stackedBytes;
        while (frames.length - next > 2) await emit();
      }
      signal?.throwIfAborted();
    }
    while (next < frames.length) await emit();
    stdin.end();
  } catch (err) {
    if (err instanceof BackClosed && !signal?.aborted) {
      // The back stopped reading: done if it exited cleanly (the front is no longer needed).
      front.child.kill("SIGKILL");
      const b = await back.exit;
      const f = await front.exit;
      if (b.code === 0) {
        return { stderr: b.stderr, frontStderr: f.stderr, averageSec: averageMs / 1000 };
      }
      throw ffmpegFailure(b.code, b.stderr);
    }
    // Stop both: a front blocked on a full pipe would otherwise wait forever.
    for (const p of [front.child, back.child]) p.kill("SIGKILL");
    if (signal?.aborted) throw signal.reason;
    const [f, b] = await Promise.all([front.exit, back.exit]);
    // A process that failed on its own (not by our kill, code -1) says why; the front first.
    if (f.code > 0) throw ffmpegFailure(f.code, f.stderr);
    if (b.code > 0) throw ffmpegFailure(b.code, b.stderr);
    throw err;
  }
  const [f, b] = await Promise.all([front.exit, back.exit]);
  if (signal?.aborted) throw signal.reason;
  if (f.code !== 0) throw ffmpegFailure(f.code, f.stderr);
  if (b.code !== 0) throw ffmpegFailure(b.code, b.stderr);
  return { stderr: b.stderr, frontStderr: f.stderr, averageSec: averageMs / 1000 };
}

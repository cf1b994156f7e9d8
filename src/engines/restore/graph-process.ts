/**
 * ffmpeg running one filter graph that arrives on its stdin (`-f lavfi -graph_file pipe:0`),
 * the graph's one output, `out0`, written to stdout as raw frames or samples.
 *
 * Nothing on that command line depends on the graph, so the process can start before the
 * graph is known. Debian's ffmpeg spends ≈ 0.04–0.13 s of CPU (by machine) before `main`
 * (the dynamic loader binding ~215 libraries, built BIND_NOW); a spare started between jobs
 * has paid that when the video analysis, the restore's critical path before its encode, asks
 * for it. The graph reads the upload itself (`movie` sources), so the spare needs no path, no
 * seek and no stream.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { Socket } from "node:net";
import { ffmpegBinaries, mediaProcessEnv } from "../ffmpeg.js";

/** How a graph's run ended. */
export interface GraphRun {
  code: number;
  /** The signal that ended the process, or null when it exited by itself. */
  signal: NodeJS.Signals | null;
  /** The end of stderr (the log: idet's summaries, or the error). */
  stderr: string;
  /** Whether the run took a spare, started before the graph was asked for. */
  warm: boolean;
}

export interface GraphRunOptions {
  signal?: AbortSignal;
  /**
   * Input options and files (`-ss … -i file …`) the graph's `[i:s]` pads read, for sources a
   * graph cannot open alike (see probe-video.ts). Such a run needs its own fresh process.
   */
  inputs?: string[];
  /** Each chunk of `out0`'s raw frames, in order; without it they are read and dropped. */
  onFrames?: (chunk: Buffer) => void;
}

/** Runs filter graphs, each in its own ffmpeg process. */
export interface GraphRunner {
  /** Runs `graph` (lavfi syntax; its one open output labelled `out0`). */
  run(graph: string, opts?: GraphRunOptions): Promise<GraphRun>;
  /**
   * Starts spares for the next runs, up to the runner's number (none for a runner without).
   * Called when a job is over, so that ffmpeg loads while the worker is between jobs: started
   * inside a job, its ≈ 0.04–0.13 s of CPU each (by machine) comes out of the encode, which
   * keeps both cores busy. Starting a process blocks this one for 2–6 ms (by its size), and
   * more on a busy or slow machine (4 spares: 20–70 ms seen).
   */
  restock(): void;
  /** Stops the spare, if one waits; later runs start their process cold. */
  close(): void;
}

/**
 * Passthrough: every frame the graph gives is written once, never repeated to a constant rate
 * (-vsync is global, so the 2018 fallback ffmpeg understands it too).
 */
const RAW_OUTPUT = ["-vsync", "0", "-f", "rawvideo", "pipe:1"];

/**
 * ffmpeg probes an input before it writes anything: on a lavfi input that means running the
 * graph until it has read 20 frames for the frame rate, which is every noise frame of a short
 * file, so they all reached us as the process ended (first bytes at 130–160 ms of 140–170),
 * held in ffmpeg meanwhile. The graph's sinks already state the streams' sizes and formats, so
 * no probing: the frames come as they are made (first bytes at 40–50 ms) and are measured
 * while the rest decode (end to end no faster on two busy cores, but nothing is held).
 */
const NO_PROBING = ["-probesize", "32", "-analyzeduration", "0", "-fpsprobesize", "0"];

/**
 * A graph whose sources are its own: it is the one input (lavfi), read from stdin. Its output's
 * packets are its raw frames, copied as they are: picture or sound (f32le samples, say), so
 * one command line, and so one spare, serves either kind of graph.
 */
const GRAPH_ARGS = [
  ...["-hide_banner", "-nostdin", "-f", "lavfi", ...NO_PROBING, "-graph_file", "pipe:0"],
  ...["-i", "graph", "-map", "0:0", "-c", "copy", ...RAW_OUTPUT],
];

/** A graph over inputs: the same stdin and output, the graph as a complex filtergraph. */
const graphOverInputs = (inputs: string[]) => [
  ...["-hide_banner", "-nostdin", ...inputs, "-filter_complex_script", "pipe:0"],
  ...["-map", "[out0]", ...RAW_OUTPUT],
];

/** stderr kept per run: the summaries and errors we read are at its end. */
const STDERR_CAP = 1024 * 1024;

function startProcess(args = GRAPH_ARGS): ChildProcessWithoutNullStreams {
  const env = { ...process.env, ...mediaProcessEnv() };
  const child = spawn(ffmpegBinaries().ffmpeg, args, { stdio: "pipe", env });
  // A process that died before its graph came (or a write to it) must not crash the server:
  // the run that takes it sees the exit, and a spare that died is simply not taken.
  child.on("error", () => {});
  child.stdin.on("error", () => {});
  return child;
}

/** Whether a started process can still take a graph. */
const alive = (child: ChildProcessWithoutNullStreams) =>
  child.pid !== undefined && child.exitCode === null && child.signalCode === null && !child.killed;

/** A waiting spare keeps neither the event loop alive nor the process from exiting. */
function setHeld(child: ChildProcessWithoutNullStreams, held: boolean) {
  // A child's pipes are sockets (typed as plain streams): only a socket can be (un)referenced.
  const pipes = [child.stdin, child.stdout, child.stderr].filter((p) => p instanceof Socket);
  for (const handle of [child, ...pipes]) {
    if (held) handle.ref();
    else handle.unref();
  }
}

/** Hands `graph` to `child` and collects what it writes until it exits. */
function feed(
  child: ChildProcessWithoutNullStreams,
  graph: string,
  opts: GraphRunOptions,
): Promise<Omit<GraphRun, "warm"> & { wroteFrames: boolean }> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    let wroteFrames = false;
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      stderr += d;
      if (stderr.length > STDERR_CAP) stderr = stderr.slice(-STDERR_CAP / 2);
    });
    child.stdout.on("data", (chunk: Buffer) => {
      wroteFrames = true;
      opts.onFrames?.(chunk);
    });
    const stop = () => child.kill("SIGKILL");
    opts.signal?.addEventListener("abort", stop, { once: true });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      opts.signal?.removeEventListener("abort", stop);
      if (opts.signal?.aborted) reject(opts.signal.reason);
      else resolve({ code: code ?? -1, signal, stderr, wroteFrames });
    });
    if (opts.signal?.aborted) stop();
    else child.stdin.end(graph);
  });
}

/**
 * Runs graphs in fresh processes (`spares: 0`), or keeps up to `spares` processes waiting for
 * the next graphs, started by `restock` when a job is over; graphs run at once each take their
 * own. A spare costs an idle ffmpeg (≈ 50 MB resident, mostly shared libraries that the spares
 * share) and ends with this process: its stdin closes, it reads an empty graph and exits.
 */
export function createGraphRunner(opts: { spares: number }): GraphRunner {
  let spares: ChildProcessWithoutNullStreams[] = [];
  let closed = false;
  const take = (): { child: ChildProcessWithoutNullStreams; warm: boolean } => {
    let ready: ChildProcessWithoutNullStreams | null = null;
    while (!ready) {
      const next = spares.shift();
      if (next === undefined) break;
      if (alive(next)) ready = next;
      else next.kill("SIGKILL");
    }
    const child = ready ?? startProcess();
    setHeld(child, true);
    return { child, warm: ready !== null };
  };
  const restock = () => {
    if (closed) return;
    spares = spares.filter((child) => alive(child) || !child.kill("SIGKILL"));
    while (spares.length < opts.spares) {
      try {
        const child = startProcess();
        setHeld(child, false);
        spares.push(child);
      } catch {
        // Cannot start ffmpeg now: the next run tries again, and reports why.
        return;
      }
    }
  };
  return {
    async run(graph, runOpts = {}) {
      runOpts.signal?.throwIfAborted();
      const fresh = async (args?: string[]): Promise<GraphRun> => {
        const { wroteFrames: _, ...run } = await feed(startProcess(args), graph, runOpts);
        return { ...run, warm: false };
      };
      if (runOpts.inputs) return fresh(graphOverInputs(runOpts.inputs));
      const { child, warm } = take();
      const { wroteFrames, ...run } = await feed(child, graph, runOpts);
      // A spare killed while it waited (by hand, or the OOM killer) ends on a signal having
      // printed nothing and written no frame: the graph never ran, so it runs in a fresh one.
      if (warm && run.signal !== null && run.stderr === "" && !wroteFrames) return fresh();
      return { ...run, warm };
    },
    restock,
    close() {
      closed = true;
      for (const child of spares.splice(0)) child.kill("SIGKILL");
    },
  };
}

/** Runs every graph in a fresh process: for one-off analyses (tests, the CLI). */
export const coldGraphRunner: GraphRunner = createGraphRunner({ spares: 0 });

/**
 * Progress bars (cli-progress) for uploads, downloads and jobs, and a spinner (@clack/prompts)
 * for waits of unknown length. On anything but a terminal they are silent no-ops: a log file
 * gets the commentary lines instead of a thousand carriage returns.
 *
 * Both libraries are imported by name, never through a `require` built at run time: the
 * packed client is one esbuild bundle (build.mjs), and only what esbuild can see is put inside
 * it — a `createRequire(…)("cli-progress")` was left out and crashed the installed client on
 * its first bar, after the price had been charged.
 */
import cliProgress from "cli-progress";
import { formatBytes } from "./format.js";
import type { Output } from "./output.js";

/** A bar on stderr (drawn only on a terminal). */
export interface ProgressBar {
  update(value: number, status?: string): void;
  /** Leaves the final state on screen (the bar is not cleared). */
  stop(): void;
}

const SILENT: ProgressBar = { update() {}, stop() {} };

function makeBar(
  out: Output,
  format: string,
  total: number,
  payload: Record<string, string>,
  start = 0,
) {
  const bar = new cliProgress.SingleBar({
    format,
    stream: out.streams.stderr,
    barsize: 28,
    hideCursor: true,
    clearOnComplete: false,
    fps: 10,
    barCompleteChar: "█",
    barIncompleteChar: "░",
  });
  bar.start(total, start, payload);
  return bar;
}

/** A byte counter: `label [███░░] 42% | 12 MB of 30 MB | 8.1 MB/s | ETA 2s`. */
export function byteProgress(
  out: Output,
  label: string,
  totalBytes: number,
  /** Bytes already there when the bar starts (a resumed upload): not counted in the rate. */
  startBytes = 0,
): ProgressBar {
  if (!out.interactive) return SILENT;
  const size = formatBytes(totalBytes);
  const startedAt = Date.now();
  const payload = (value: number) => {
    const sec = (Date.now() - startedAt) / 1000;
    // The first fraction of a second says nothing about the rate, unless that was all of it.
    const known = sec > 0.2 || (value >= totalBytes && sec > 0);
    const perSec = known ? Math.max(0, value - startBytes) / sec : 0;
    return {
      label,
      done: formatBytes(value),
      size,
      rate: known ? `${formatBytes(perSec)}/s` : "…",
      // Our own estimate: cli-progress's reads "NFs" while nothing has moved yet.
      left:
        value >= totalBytes ? "0s" : perSec > 0 ? shortTime((totalBytes - value) / perSec) : "…",
    };
  };
  const bar = makeBar(
    out,
    "{label} [{bar}] {percentage}% | {done} of {size} | {rate} | ETA {left}",
    Math.max(1, totalBytes),
    payload(startBytes),
    // A resumed upload's first frame already shows what arrived before (not 0% of 10 MB).
    startBytes,
  );
  return {
    update: (value) => bar.update(value, payload(value)),
    stop: () => bar.stop(),
  };
}

/** 75 → "1m 15s", 7 → "7s", 4000 → "1h 07m". */
function shortTime(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/** A job's bar: its progress, a status, and the server's estimate of the seconds left. */
export interface JobBar {
  update(fraction: number, status: string, etaSeconds: number | null): void;
  stop(): void;
}

/** "about 2m 20s left" from seconds; "any moment now" once the estimate has run out. */
export function etaText(seconds: number): string {
  const s = Math.round(seconds);
  if (s <= 0) return "any moment now";
  if (s < 60) return `about ${s}s left`;
  const m = Math.floor(s / 60);
  if (m < 60) return `about ${m}m ${String(s % 60).padStart(2, "0")}s left`;
  return `about ${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m left`;
}

/**
 * A job's progress (0..1 from the server) with its status, queue place and the server's ETA:
 * `restore [██░░] 40% | 2 ahead in the queue | about 1m 05s left`. The estimate counts down
 * between reads (it is re-based on each answer); without one the time waited so far is shown.
 */
export function jobProgress(out: Output, label: string): JobBar {
  if (!out.interactive) return { update() {}, stop() {} };
  const startedAt = Date.now();
  let doneBy: number | null = null;
  let status = "starting";
  let percent = 0;
  const payload = () => {
    const waited = Math.round((Date.now() - startedAt) / 1000);
    const left = doneBy === null ? `${waited}s so far` : etaText((doneBy - Date.now()) / 1000);
    return { label, status, left };
  };
  const bar = makeBar(out, "{label} [{bar}] {percentage}% | {status} | {left}", 100, payload());
  // Redraw each second so the estimate counts down between the server's answers. (Not named
  // {eta}: cli-progress fills that token itself, from its own rate.)
  const tick = setInterval(() => bar.update(percent, payload()), 1000);
  tick.unref();
  return {
    update: (fraction, text, etaSeconds) => {
      percent = Math.round(Math.max(0, Math.min(1, fraction)) * 100);
      status = text;
      doneBy = etaSeconds === null ? null : Date.now() + etaSeconds * 1000;
      bar.update(percent, payload());
    },
    stop: () => {
      clearInterval(tick);
      bar.stop();
    },
  };
}

interface Spinner {
  message(text: string): void;
  stop(text: string): void;
}

/** A spinner for waits of unknown length (a payment landing); plain notes off a terminal. */
export async function spinner(out: Output, text: string): Promise<Spinner> {
  if (!out.interactive) {
    out.note(text);
    return { message() {}, stop: (done) => out.note(done) };
  }
  const { spinner: clackSpinner } = await import("@clack/prompts");
  const s = clackSpinner({ output: out.streams.stderr, withGuide: false });
  s.start(text);
  return { message: (m) => s.message(m), stop: (done) => s.stop(done) };
}

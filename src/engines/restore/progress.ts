/**
 * Turns ffmpeg's `-progress pipe:2` stream into fractions. Chunks arrive split anywhere, so
 * lines are reassembled; fractions only ever increase and stay within [from, to].
 */
export interface ProgressSpan {
  /** Fraction already reached when this pass starts, and where it ends. */
  from: number;
  to: number;
}

export function createProgressParser(
  durationSec: number,
  onProgress: (fraction: number) => void,
  span: ProgressSpan = { from: 0, to: 1 },
): (chunk: string) => void {
  let pending = "";
  let reported = -1;
  const report = (f: number) => {
    const clamped = Math.min(span.to, Math.max(span.from, f));
    // Whole permille steps: enough resolution, no flood of callbacks.
    const rounded = Math.floor(clamped * 1000) / 1000;
    if (rounded > reported) {
      reported = rounded;
      onProgress(rounded);
    }
  };
  return (chunk: string) => {
    pending += chunk;
    const lines = pending.split(/\r?\n|\r/);
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const m = /^out_time_us=(\d+)/.exec(line.trim());
      if (!m || durationSec <= 0) continue;
      const done = Number(m[1]) / 1e6 / durationSec;
      report(span.from + (span.to - span.from) * Math.min(1, done));
    }
  };
}

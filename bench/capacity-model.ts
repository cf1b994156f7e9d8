/**
 * The capacity model of docs/capacity.md (pure): how long a tape takes on W workers, each
 * restoring one segment at a time on one core, from what bench/segments.ts measures. The
 * analysis runs first (once), then the sound's pass and the segments share the workers (the
 * sound is one unit: it cannot be split without a joint in it), then the join.
 */

export interface CapacityInput {
  tapeMin: number;
  segmentSec: number;
  /** Picture CPU seconds per minute of video on one thread. */
  pictureCpuPerMin: number;
  /** A segment's fixed CPU seconds (start, seek, look-back and look-ahead). */
  fixedCpuSec: number;
  /** The sound's pass, CPU seconds per minute of video on one thread. */
  soundCpuPerMin: number;
  /** Wall seconds of the analysis and of the join for this tape. */
  analysisSec: number;
  joinSec: number;
}

export interface CapacityEstimate {
  workers: number;
  segments: number;
  /** One segment's time on one core. */
  segmentWorkSec: number;
  soundWorkSec: number;
  /** The busiest worker's time between the analysis and the join. */
  makespanSec: number;
  wallSec: number;
  /** What ends last between the analysis and the join. */
  critical: "picture" | "sound";
}

/**
 * The wall time of `m.tapeMin` on `workers`: the sound first (the longest unit), then each
 * segment to whichever worker is free first.
 */
export function estimateWall(m: CapacityInput, workers: number): CapacityEstimate {
  const segments = Math.max(1, Math.round((m.tapeMin * 60) / m.segmentSec));
  const spanSec = (m.tapeMin * 60) / segments;
  const segmentWorkSec = (m.pictureCpuPerMin * spanSec) / 60 + m.fixedCpuSec;
  const soundWorkSec = m.soundCpuPerMin * m.tapeMin;
  const busy = new Array<number>(workers).fill(0);
  busy[0] = soundWorkSec;
  for (let i = 0; i < segments; i++) {
    let free = 0;
    for (let w = 1; w < workers; w++) if ((busy[w] as number) < (busy[free] as number)) free = w;
    busy[free] = (busy[free] as number) + segmentWorkSec;
  }
  const makespanSec = Math.max(...busy);
  const pictureOnly = Math.max(...busy.map((b, w) => (w === 0 ? b - soundWorkSec : b)));
  return {
    workers,
    segments,
    segmentWorkSec,
    soundWorkSec,
    makespanSec,
    wallSec: m.analysisSec + makespanSec + m.joinSec,
    critical: busy[0] === makespanSec && soundWorkSec > pictureOnly ? "sound" : "picture",
  };
}

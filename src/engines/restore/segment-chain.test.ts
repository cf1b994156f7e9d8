import { describe, expect, it } from "vitest";
import { buildStabiliseDetectArgs, buildVideoPassArgs } from "./chain.js";
import {
  buildSegmentArgs,
  buildSegmentDetectArgs,
  CONTEXT_FRAMES,
  RECURSIVE_CONTEXT_SEC,
  type SegmentJob,
  segmentContext,
  segmentWindow,
} from "./segment-chain.js";
import type { SegmentSpec } from "./segments.js";
import type { RestorePlan } from "./types.js";

/** A plain Standard plan for a 25 fps progressive 320×240 file, as decidePlan writes it. */
function plan(
  overrides: Partial<RestorePlan["video"]> = {},
  threads: number | null = 1,
): RestorePlan {
  return {
    version: 1,
    quality: "faithful",
    source: {
      videoCodec: "h264",
      videoStreamIndex: 0,
      width: 320,
      height: 240,
      sarNum: 1,
      sarDen: 1,
      fps: 25,
      rotationCw: 0,
      fieldOrder: "progressive",
      colorMatrix: null,
      audio: null,
      headerDurationSec: 60,
    },
    measured: {
      windowSec: 6,
      interlace: null,
      shakeRatio: null,
      levels: null,
      hum: null,
      loudness: null,
    },
    video: {
      deinterlace: null,
      rotationCw: 0,
      stabilise: null,
      deflicker: true,
      dropouts: null,
      denoise: [],
      chromaShift: null,
      levels: null,
      saturation: null,
      crop: null,
      scale: null,
      output: { width: 320, height: 240, fps: 25 },
      ...overrides,
    } as RestorePlan["video"],
    audio: null,
    encode: {
      x264Preset: "veryfast",
      crf: 18,
      maxrateK: 4000,
      bufsizeK: 8000,
      audioBitrateK: 160,
      threads,
    },
    notes: [],
  };
}

const segment = (index: number, startSec: number, endSec: number, last = false): SegmentSpec => ({
  index,
  startSec,
  endSec,
  frames: Math.round((endSec - startSec) * 25),
  onKeyframe: true,
  last,
});

const job = (p: RestorePlan, s: SegmentSpec): SegmentJob => ({
  plan: p,
  input: "/in/tape.mp4",
  segment: s,
  frameSec: 0.04,
});

describe("segmentContext", () => {
  it("looks 12 frames back and ahead, and 2 s back when hqdn3d remembers frames", () => {
    expect(segmentContext(plan(), 0.04)).toEqual({
      beforeSec: CONTEXT_FRAMES * 0.04,
      afterSec: 0.48,
    });
    const denoise = [
      {
        filter: "hqdn3d" as const,
        lumaSpatial: 4,
        chromaSpatial: 6,
        lumaTemporal: 0,
        chromaTemporal: 0,
      },
    ];
    expect(segmentContext(plan({ denoise }), 0.04)).toEqual({
      beforeSec: RECURSIVE_CONTEXT_SEC,
      afterSec: 0.48,
    });
  });
});

describe("segmentWindow", () => {
  it("reads from the context before the cut to the context after the end, keeping [start, end)", () => {
    expect(segmentWindow(job(plan(), segment(2, 24, 36)))).toEqual({
      seekSec: 23.52,
      readSec: 12.96,
      keepFromSec: 0.47,
      keepSec: 12,
    });
  });

  it("starts the first segment at the file's start", () => {
    expect(segmentWindow(job(plan(), segment(0, 0, 12)))).toMatchObject({
      seekSec: 0,
      keepFromSec: 0,
      keepSec: 12,
    });
  });

  it("keeps both field-rate frames of the segment's last source frame, a quarter of 50p early", () => {
    const fieldRate = plan({ output: { width: 320, height: 240, fps: 50 } });
    const w = segmentWindow(job(fieldRate, segment(1, 12, 24)));
    // Output frames at 11.96 and 11.98 belong to the segment before; 12.00 to this one.
    expect(w.seekSec + w.keepFromSec).toBeCloseTo(12 - 0.005, 9);
    expect(w.seekSec + w.keepFromSec + w.keepSec).toBeCloseTo(24 - 0.005, 9);
  });
});

describe("buildSegmentArgs", () => {
  it("is the whole file's picture pass with a seek before the input and a trim before the output", () => {
    const p = plan();
    const out = "/work/seg-2.mp4";
    const args = buildSegmentArgs(job(p, segment(2, 24, 36)), out);
    const pass = buildVideoPassArgs(p, "/in/tape.mp4", out, { faststart: false });
    expect(args).toEqual([
      ...["-threads", "1", "-ss", "23.520000", "-t", "12.960000"],
      ...pass.slice(0, -1),
      ...["-ss", "0.470000", "-t", "12.000000"],
      out,
    ]);
    // The same encoder settings as one piece: that is what lets the pieces join by copying.
    expect(args.join(" ")).toContain("-c:v libx264 -preset veryfast -crf 18");
  });

  it("takes up a dropped connection again when it reads the input over HTTP", () => {
    const remote = { ...job(plan(), segment(1, 12, 24)), input: "https://store.example/in?sig=x" };
    const args = buildSegmentArgs(remote, "/o.mp4");
    expect(args.slice(0, 12)).toEqual([
      ...["-threads", "1", "-reconnect", "1", "-reconnect_on_network_error", "1"],
      ...["-reconnect_delay_max", "4", "-rw_timeout", "30000000", "-ss", "11.520000"],
    ]);
    expect(args).toContain("https://store.example/in?sig=x");
  });

  it("leaves the decoder's threads to ffmpeg when the plan does", () => {
    const args = buildSegmentArgs(job(plan({}, null), segment(1, 12, 24)), "/o.mp4");
    expect(args.slice(0, 2)).toEqual(["-ss", "11.520000"]);
  });

  it("runs the stabiliser's detect pass over the same window", () => {
    const p = plan({ stabilise: { smoothing: 12 } });
    const j = job(p, segment(0, 0, 30, true));
    const detect = buildSegmentDetectArgs(j, "/o.mp4");
    expect(detect).toEqual([
      ...["-threads", "1", "-ss", "0.000000", "-t", "30.480000"],
      ...buildStabiliseDetectArgs(p, "/in/tape.mp4", "/o.mp4"),
    ]);
  });
});

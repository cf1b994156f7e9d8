import { describe, expect, it } from "vitest";
import { type FrameList, frameInterval, parseFrameList, planCuts } from "./segments.js";

/** `seconds` of frames at `fps`, a keyframe every `gop` frames (none when 0). */
function frames(seconds: number, fps: number, gop: number): FrameList {
  const times = Array.from(
    { length: Math.round(seconds * fps) },
    (_, i) => Math.round((i / fps) * 1e6) / 1e6,
  );
  const keyframes = times.flatMap((_, i) => (gop > 0 && i % gop === 0 ? [i] : []));
  return { times, keyframes: keyframes.length > 0 ? keyframes : [0] };
}

describe("parseFrameList", () => {
  it("sorts frames into display order from the file's start and keeps the keyframes", () => {
    // An MPEG-TS with B-frames: decode order, times from a start of 1.4 s, trailing fields.
    const csv = [
      "1.440000,1.400000,K_,",
      "",
      "1.560000,1.440000,__,",
      "1.480000,1.480000,__",
      "1.520000,1.520000,K_",
    ].join("\n");
    expect(parseFrameList(csv, 1.4)).toEqual({
      times: [0.04, 0.08, 0.12, 0.16],
      keyframes: [0, 2],
    });
  });

  it("skips packets to discard and takes dts where pts is missing; a repeated time is one frame", () => {
    const csv = [
      "-0.080000,-0.120000,_D",
      "N/A,0.000000,K_",
      "0.040000,0.040000,__",
      "0.040000,0.040000,__",
      "N/A,N/A,__",
    ].join("\n");
    expect(parseFrameList(csv, 0)).toEqual({ times: [0, 0.04], keyframes: [0] });
  });
});

describe("planCuts", () => {
  it("keeps a video shorter than two segments in one piece", () => {
    const cut = planCuts(frames(23.9, 25, 50), { segmentSec: 12 });
    expect(cut.segments).toEqual([
      { index: 0, startSec: 0, endSec: 23.92, frames: 598, onKeyframe: true, last: true },
    ]);
    expect(cut.notes[0]).toMatch(/one piece: 23.92 s is shorter than two segments of 12 s/);
  });

  it("cuts on the keyframe nearest each equal share, covering every frame once", () => {
    // 60 s at 25 fps, a keyframe every 2 s: 5 segments of 12 s, cuts on keyframes.
    const cut = planCuts(frames(60, 25, 50), { segmentSec: 12 });
    expect(cut.segments.map((s) => [s.startSec, s.endSec, s.frames, s.onKeyframe])).toEqual([
      [0, 12, 300, true],
      [12, 24, 300, true],
      [24, 36, 300, true],
      [36, 48, 300, true],
      [48, 60, 300, true],
    ]);
    expect(cut).toMatchObject({ frames: 1500, frameSec: 0.04, startSec: 0, endSec: 60 });
    expect(cut.segments.map((s) => s.last)).toEqual([false, false, false, false, true]);
    expect(cut.notes).toEqual([]);
  });

  it("moves a cut to a keyframe within a quarter of a segment, making that segment longer", () => {
    // Keyframes every 5 s: the shares end at 13.33 and 26.67 s; the keyframes at 15 and 25 s.
    const cut = planCuts(frames(40, 25, 125), { segmentSec: 13 });
    expect(cut.segments.map((s) => [s.startSec, s.endSec])).toEqual([
      [0, 15],
      [15, 25],
      [25, 40],
    ]);
    expect(cut.segments.every((s) => s.onKeyframe)).toBe(true);
  });

  it("cuts between keyframes when none is near, and says so", () => {
    // One keyframe at the start (a long GOP): cuts at the frames nearest 10 s and 20 s.
    const cut = planCuts(frames(30, 25, 0), { segmentSec: 10 });
    expect(cut.segments.map((s) => [s.startSec, s.onKeyframe])).toEqual([
      [0, true],
      [10, false],
      [20, false],
    ]);
    expect(cut.notes).toHaveLength(2);
    expect(cut.notes[0]).toMatch(/no keyframe within 2.5 s of 10 s; cut between keyframes at 10 s/);
  });

  it("starts where the picture starts and ends after its last frame (29.97 fps, late start)", () => {
    const fps = 30000 / 1001;
    const list = frames(50, fps, 15);
    const late = { ...list, times: list.times.map((t) => Math.round((t + 0.5) * 1e6) / 1e6) };
    const cut = planCuts(late, { segmentSec: 10 });
    expect(cut.startSec).toBe(0.5);
    expect(cut.endSec).toBeCloseTo(0.5 + 1499 / fps, 5);
    expect(cut.segments).toHaveLength(5);
    expect(cut.segments.reduce((n, s) => n + s.frames, 0)).toBe(1499);
    for (const [i, s] of cut.segments.entries()) {
      if (i > 0) expect(s.startSec).toBe(cut.segments[i - 1]?.endSec);
      expect(Math.abs(s.endSec - s.startSec - 10)).toBeLessThan(2.5);
    }
  });

  it("keeps one piece when asked, whatever the length", () => {
    const cut = planCuts(frames(60, 25, 25), { segmentSec: 5, onePieceBecause: "stabilised" });
    expect(cut.segments).toHaveLength(1);
    expect(cut.notes).toEqual(["one piece: stabilised"]);
  });

  it("refuses a segment length under a second and an empty list", () => {
    expect(() => planCuts(frames(60, 25, 25), { segmentSec: 0.5 })).toThrow(RangeError);
    expect(() => planCuts(frames(60, 25, 25), { segmentSec: Number.NaN })).toThrow(/at least 1 s/);
    expect(() => planCuts({ times: [], keyframes: [] }, { segmentSec: 10 })).toThrow(RangeError);
  });

  it("reads the frame interval as the median gap, so a dropped frame does not move it", () => {
    expect(frameInterval([0, 0.04, 0.08, 0.16, 0.2])).toBe(0.04);
  });
});

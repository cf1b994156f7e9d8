/**
 * The probe reads excerpts, not the whole file: does it still find interlacing, hum and
 * loudness — including when the defect is only in the second half of the file, and with
 * keyframes far apart (where it reads straight through instead of seeking)?
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, tempDir } from "../../../test/restore/media.js";
import { coldGraphRunner, type GraphRunner } from "./graph-process.js";
import { seekLandings } from "./landings.js";
import { analyseVideo, probeForPlan, probeSource, readVideo, VIDEO_SAMPLE_SEC } from "./probe.js";
import { analyseHumAndLoudness } from "./probe-audio.js";
import { ANALYSIS_PROCESSES } from "./probe-video.js";
import { DEFAULT_SAMPLING, planReads, planSamples, type SamplingOptions } from "./sampling.js";
import type { InterlaceCounts } from "./types.js";

let dir: string;
let cleanup: () => Promise<void>;
const path = (name: string) => join(dir, name);

const SECONDS = 12;
const HALF = SECONDS / 2;
// Progressive for the first half; interlaced (two fields from two moments) for the second.
const HALF_INTERLACED =
  `testsrc2=s=320x240:r=25:d=${HALF}[a];` +
  `testsrc2=s=320x240:r=50:d=${HALF},interlace=scan=tff:lowpass=off[b];[a][b]concat=n=2[out0]`;
// A clean tone; 50 Hz hum and its harmonic join it in the second half only.
const HALF_HUM = `aevalsrc='0.3*sin(2*PI*440*t)+gte(t,${HALF})*(0.15*sin(2*PI*50*t)+0.05*sin(2*PI*100*t))':s=48000`;
// Near-silence, then loud: integrated loudness is the loud half's.
const LATE_LOUD = `aevalsrc='if(lt(t,${HALF}),0.003,0.7)*sin(2*PI*440*t)':s=48000`;
/**
 * Treat the 12 s clips as long files: four excerpts, at 0, 3.8, 7.7 and 11.5 s when 0.5 s long
 * (the analyses called with these samples), at 0, 3.3, 6.7 and 10 s when 2 s long (the probe's
 * shortest video excerpt at every quality, VIDEO_SAMPLE_SEC).
 */
const FOUR: Partial<SamplingOptions> = {
  share: 0.1,
  minTotalSec: 1,
  spacingSec: 3,
  minSamples: 4,
  maxSamples: 4,
};
const decodedFrames = (c: InterlaceCounts | null) =>
  c ? c.tff + c.bff + c.progressive + c.undetermined : 0;

/** `task` in a fresh scratch folder of its own, removed afterwards. */
async function withDir<T>(task: (dir: string) => Promise<T>): Promise<T> {
  const scratch = await mkdtemp(join(tmpdir(), "kinora-sampled-"));
  try {
    return await task(scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const ultrafast = (gop: number) => ["-c:v", "libx264", "-preset", "ultrafast", "-g", String(gop)];
  await Promise.all([
    // Keyframes every second: each excerpt is a seek.
    generate(path("late-g25.mp4"), {
      video: HALF_INTERLACED,
      seconds: SECONDS,
      audio: HALF_HUM,
      codec: ultrafast(25),
    }),
    // One keyframe every 10 s: seeking would decode the same GOP again and again.
    generate(path("late-g250.mp4"), {
      video: HALF_INTERLACED,
      seconds: SECONDS,
      audio: HALF_HUM,
      codec: ultrafast(250),
    }),
    // The same as MPEG-2 with B-frames in a transport stream, which seeks by decode time.
    generate(path("late-g25.ts"), {
      video: HALF_INTERLACED,
      seconds: SECONDS,
      audio: HALF_HUM,
      codec: ["-c:v", "mpeg2video", "-q:v", "4", "-bf", "2", "-g", "25", "-flags", "+ilme+ildct"],
    }),
    // Tape-like MPEG-2 in a transport stream: interlaced (two moments per frame), noisy, a GOP
    // of 12 with B-frames; its container starts at 1.4 s and seeks by decode time.
    generate(path("tape.ts"), {
      video: "testsrc2=s=720x576:r=25,noise=alls=10:allf=t",
      seconds: 12,
      vf: "tinterlace=interleave_top,fieldorder=tff",
      codec: ["-c:v", "mpeg2video", "-b:v", "6M", "-flags", "+ilme+ildct", "-top", "1", "-g", "12"],
    }),
    // Grainy MPEG-2 with B-frames in MP4: how much grain a frame keeps depends on its type.
    generate(path("grain.mp4"), {
      video: "testsrc2=s=352x288:r=25,noise=alls=14:allf=t",
      seconds: SECONDS,
      codec: ["-c:v", "mpeg2video", "-b:v", "3M", "-bf", "2", "-g", "12"],
    }),
    // Hum, but the sound stops at 7 s of 12: the last excerpts have little or nothing.
    generate(path("short-sound.mp4"), {
      video: "testsrc2=s=320x240:r=25",
      seconds: SECONDS,
      audio: "aevalsrc='0.3*sin(2*PI*440*t)+0.1*sin(2*PI*50*t)':s=48000:d=7",
      codec: ultrafast(25),
    }),
    generate(path("late-loud.mp4"), {
      video: "testsrc2=s=320x240:r=25",
      seconds: SECONDS,
      audio: LATE_LOUD,
      codec: ultrafast(25),
    }),
    // The bench's 10 s clip's keyframes (x264's own choice on it): the third excerpt's (8 s)
    // is 2.24 s before it, too far to start on.
    generate(path("irregular-gop.mp4"), {
      video: "testsrc2=s=320x240:r=25,noise=alls=12:allf=t",
      seconds: 10,
      codec: [
        ...["-c:v", "libx264", "-preset", "ultrafast", "-x264-params", "keyint=1000:scenecut=0"],
        ...["-force_key_frames", "0,1.64,3.76,5.76,8.48"],
      ],
    }),
    // Bff interlacing and 60 Hz hum over the whole file, with the default sampling.
    generate(path("all-bff.mp4"), {
      video: "testsrc2=s=320x240:r=50",
      seconds: 20,
      vf: "interlace=scan=bff:lowpass=off",
      audio: "aevalsrc='0.3*sin(2*PI*440*t)+0.15*sin(2*PI*60*t)+0.05*sin(2*PI*120*t)':s=48000",
      codec: ultrafast(50),
    }),
  ]);
}, 60_000);

afterAll(() => cleanup());

describe("sampled probe", () => {
  it.each([
    // Each excerpt starts on the keyframe (every second) just before its planned spot.
    ["seeking to each excerpt", "late-g25.mp4", [0, 3, 6, 10]],
    ["reading straight through long GOPs", "late-g250.mp4", [0, 3.333, 6.667, 10]],
    // Where the excerpts start follows the stream's own length: not pinned here.
    ["seeking in an MPEG-2 transport stream", "late-g25.ts", null],
  ])("finds interlacing and hum only in the second half, %s", async (_, file, starts) => {
    const plan = await probeForPlan(path(file), "faithful", undefined, { sampling: FOUR });
    if (starts) expect(plan.measured.samples?.map((s) => s.startSec)).toEqual(starts);
    expect(plan.video.deinterlace).toEqual({ filter: "bwdif", parity: "tff", sendField: false });
    expect(plan.audio?.hum?.hz).toBe(50);
    // Four 2 s excerpts at 25 fps, each trimmed to 50 frames, not the file's 300 frames (the
    // transport stream reads 183: 98 from its progressive half, 85 from its interlaced one).
    expect(decodedFrames(plan.measured.interlace)).toBeLessThanOrEqual(4 * VIDEO_SAMPLE_SEC * 25);
    expect(decodedFrames(plan.measured.interlace)).toBeGreaterThanOrEqual(4 * 45);
  });

  it("reads a transport stream's excerpts where -ss puts them, and finds its interlacing", async () => {
    // A seek without -ss's early start on such streams (movie's) landed a second late on the
    // last excerpt: 61 frames read instead of 72.
    const plan = await probeForPlan(path("tape.ts"), "enhanced");
    expect(plan.measured.samples).toHaveLength(3);
    expect(plan.video.deinterlace?.parity).toBe("tff");
    expect(decodedFrames(plan.measured.interlace)).toBeGreaterThanOrEqual(70);
  });

  it("measures loudness over the whole track, loud only in its second half", async () => {
    const plan = await probeForPlan(path("late-loud.mp4"), "faithful", undefined, {
      sampling: FOUR,
    });
    expect(plan.audio?.loudness?.measured?.inputI).toBeGreaterThan(-14);
    expect(plan.audio?.loudness?.measured?.inputTp).toBeGreaterThan(-6);
    expect(plan.video.deinterlace).toBeNull();
    expect(plan.audio?.hum).toBeNull();
  });

  it("finds file-long bff interlacing and 60 Hz hum with the default excerpts", async () => {
    const plan = await probeForPlan(path("all-bff.mp4"), "faithful");
    expect(plan.measured.samples).toHaveLength(3);
    expect(plan.measured.windowSec).toBe(3 * VIDEO_SAMPLE_SEC);
    expect(plan.video.deinterlace?.parity).toBe("bff");
    expect(plan.audio?.hum?.hz).toBe(60);
    expect(plan.audio?.loudness?.measured?.inputI).toBeLessThan(-10);
  });

  it.each([
    ["MPEG-2 with B-frames, 12 s", "grain.mp4"],
    ["a tape in a transport stream, interlaced", "tape.ts"],
  ])("reads the same grain at every quality: %s", async (_, name) => {
    // Standard used to read 0.5 s excerpts of a file under 50 s and Enhanced 2 s ones, so the
    // two believed different things about one tape (held-out `wood dropouts-grain`: σ 3.2 and
    // "coarse" against 2.79 and fine) and took different grain out.
    const [standard, enhanced, max] = await Promise.all([
      readVideo(path(name), "faithful"),
      readVideo(path(name), "enhanced"),
      readVideo(path(name), "enhanced_max"),
    ]);
    expect(standard.measured.samples).toHaveLength(3);
    expect(standard.measured.samples?.every((s) => s.seconds >= VIDEO_SAMPLE_SEC)).toBe(true);
    expect(standard.measured.samples).toEqual(enhanced.measured.samples);
    expect(standard.measured.noise?.pairs).toBeGreaterThanOrEqual(12);
    expect(standard.measured.noise).toEqual(enhanced.measured.noise);
    expect(standard.measured.chromaShift).toEqual(enhanced.measured.chromaShift);
    expect(standard.measured.interlace).toEqual(enhanced.measured.interlace);
    expect(max.measured.noise).toEqual(enhanced.measured.noise);
  });
});

/** Counts the graphs a runner is handed, and runs them in fresh processes. */
function countingRunner(): GraphRunner & { graphs: string[] } {
  const graphs: string[] = [];
  return {
    graphs,
    run: (graph, opts) => {
      graphs.push(graph);
      return coldGraphRunner.run(graph, opts);
    },
    restock: () => {},
    close: () => {},
  };
}

describe("analyses in spare-able processes", () => {
  it.each([
    ["one idet and noise", "grain.mp4", false],
    ["levels and shake too", "late-g25.mp4", true],
  ])(
    "splits the excerpts over processes and measures what one process does: %s",
    async (_, name, enhanced) => {
      const file = path(name);
      const source = await probeSource(file);
      const sampling = { ...DEFAULT_SAMPLING, ...FOUR };
      const samples = planSamples(source.headerDurationSec, sampling, enhanced ? 2 : undefined);
      const measure = async (processes?: number) => {
        const runner = countingRunner();
        const opts = { samples, levels: enhanced, shake: enhanced, runner, processes };
        const measured = await withDir((dir) => analyseVideo(file, source, dir, opts));
        return { measured, graphs: runner.graphs.length };
      };
      const [one, split] = await Promise.all([measure(1), measure()]);
      expect([one.graphs, split.graphs]).toEqual([1, ANALYSIS_PROCESSES]);
      // Each excerpt has its own idet, and the noise frames are counted on across processes.
      expect(split.measured.interlace).toEqual(one.measured.interlace);
      expect(split.measured.noise).toEqual(one.measured.noise);
      expect(split.measured.samples).toEqual(one.measured.samples);
      if (!enhanced) return;
      // Levels and the colour's slip are read off the same frames as the noise; the shake's
      // denoiser is temporal: in one process it carried an excerpt's last frames into the next
      // one's first, apart each starts afresh.
      expect(split.measured.levels).toEqual(one.measured.levels);
      expect(split.measured.chromaShift).toEqual(one.measured.chromaShift);
      expect(split.measured.shakeRatio).toBeCloseTo(one.measured.shakeRatio ?? 0, 3);
    },
  );

  it("starts before the landings are known, and starts over when the keyframes are far apart", async () => {
    const measure = async (name: string) => {
      const file = path(name);
      const source = await probeSource(file);
      const samples = planSamples(source.headerDurationSec, { ...DEFAULT_SAMPLING, ...FOUR });
      const runner = countingRunner();
      const opts = { samples, levels: false, shake: false, runner };
      const measured = await withDir((dir) => analyseVideo(file, source, dir, opts));
      return { measured, graphs: runner.graphs };
    };
    // A keyframe a second: the run started at once is the one.
    const near = await measure("late-g25.mp4");
    expect(near.graphs).toHaveLength(ANALYSIS_PROCESSES);
    expect(near.measured.samples?.map((s) => s.startSec)).toEqual([0, 3, 7, 11]);
    // Open GOPs of 12 with B-frames: the excerpts' first frames are where ffprobe says the
    // seeks land, so the run is the one here too.
    const grain = await measure("grain.mp4");
    const source = await probeSource(path("grain.mp4"));
    const samples = planSamples(source.headerDurationSec, { ...DEFAULT_SAMPLING, ...FOUR });
    const landings = await seekLandings(path("grain.mp4"), source, samples);
    expect(grain.graphs).toHaveLength(ANALYSIS_PROCESSES);
    expect(grain.measured.samples).toEqual(planReads(samples, landings).samples);
    // One every 10 s: given up for one read straight through (one source, split four ways).
    const far = await measure("late-g250.mp4");
    expect(far.graphs).toHaveLength(ANALYSIS_PROCESSES + 1);
    expect(far.graphs.at(-1)).toMatch(/split=4/);
    expect(decodedFrames(far.measured.interlace)).toBeGreaterThanOrEqual(4 * 11);
    expect(decodedFrames(far.measured.interlace)).toBeLessThanOrEqual(4 * 13);
  });

  it("reads excerpts whose keyframes are near and far in the one run started at once", async () => {
    const file = path("irregular-gop.mp4");
    const source = await probeSource(file);
    const samples = planSamples(source.headerDurationSec, DEFAULT_SAMPLING, VIDEO_SAMPLE_SEC);
    const runner = countingRunner();
    const opts = { samples, levels: false, shake: false, runner };
    const measured = await withDir((dir) => analyseVideo(file, source, dir, opts));
    // The second starts on its keyframe (3.76 for 4), the third at 8 with its lead dropped:
    // what ffprobe's landings plan, read without a second run (it used to take two).
    const landings = await seekLandings(file, source, samples);
    expect(planReads(samples, landings).samples.map((s) => s.startSec)).toEqual([0, 3.76, 8]);
    expect(measured.samples).toEqual(planReads(samples, landings).samples);
    expect(runner.graphs).toHaveLength(ANALYSIS_PROCESSES);
    expect(decodedFrames(measured.interlace)).toBe(3 * VIDEO_SAMPLE_SEC * 25);
  });

  it.each([
    ["hum in the second half", "late-g25.mp4"],
    ["a track that ends before the picture", "short-sound.mp4"],
  ])("measures hum and loudness in one graph as the command line does: %s", async (_, name) => {
    const file = path(name);
    const source = await probeSource(file);
    const samples = planSamples(source.headerDurationSec, { ...DEFAULT_SAMPLING, ...FOUR }, 2);
    const runner = countingRunner();
    const streamIndex = source.audio?.streamIndex;
    const plain = { highpassHz: 60 };
    const [inGraph, onCommandLine] = await Promise.all([
      withDir((dir) => analyseHumAndLoudness(file, dir, plain, { samples, streamIndex, runner })),
      withDir((dir) => analyseHumAndLoudness(file, dir, plain, { samples, streamIndex })),
    ]);
    expect(runner.graphs).toHaveLength(1);
    expect(inGraph).toEqual(onCommandLine);
    expect(inGraph.plainLoudness).not.toBeNull();
    if (name === "late-g25.mp4") expect(inGraph.hum?.db50).toBeGreaterThan(10);
  });
});

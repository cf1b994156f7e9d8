/** The probe pass on real (tiny, synthetic) files: does it measure what it should? */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, tempDir } from "../../../test/restore/media.js";
import { measureLoudness, probeForPlan } from "./probe.js";

let dir: string;
let cleanup: () => Promise<void>;
const path = (name: string) => join(dir, name);

const QVGA = "testsrc2=s=320x240:r=25";
// Interlaced video is made the way a camera makes it: two fields from two moments (50p → 25i).
const FIELDS = "testsrc2=s=320x240:r=50";
const tone = (hz: number | null) =>
  `aevalsrc='0.3*sin(2*PI*440*t)${hz ? `+0.15*sin(2*PI*${hz}*t)+0.05*sin(2*PI*${2 * hz}*t)` : ""}':s=48000`;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  await Promise.all([
    generate(path("progressive.mp4"), { video: QVGA, seconds: 2, audio: tone(null) }),
    generate(path("tff.mp4"), {
      video: FIELDS,
      seconds: 2,
      vf: "interlace=scan=tff:lowpass=off",
      audio: tone(50),
    }),
    generate(path("bff.mp4"), {
      video: FIELDS,
      seconds: 2,
      vf: "interlace=scan=bff:lowpass=off",
      audio: tone(60),
    }),
    // A hand-held camera: the frame jumps a few pixels every frame.
    generate(path("shaky.mp4"), {
      video: "testsrc2=s=360x280:r=25",
      seconds: 2,
      vf: "crop=320:240:x='20+12*sin(n*2.1)+5*sin(n*5.3)':y='20+10*sin(n*1.3+1)'",
    }),
    // A smooth pan is camera motion too, but nothing to stabilise.
    generate(path("pan.mp4"), {
      video: "testsrc2=s=400x240:r=25",
      seconds: 2,
      vf: "crop=320:240:x='n*2':y=0",
    }),
    // Faded dye: contrast and colour both gone (contrast alone, on testsrc2's pure colours, makes
    // them more saturated than RGB can hold: no veil at all).
    generate(path("faded.mp4"), {
      video: QVGA,
      seconds: 1.5,
      vf: "eq=contrast=0.6:saturation=0.6",
    }),
    generate(path("mono.mp4"), { video: QVGA, seconds: 1.5, vf: "hue=s=0" }),
  ]);
}, 60_000);

afterAll(() => cleanup());

describe("probeForPlan", () => {
  it("finds top-field-first interlacing and 50 Hz hum", async () => {
    const plan = await probeForPlan(path("tff.mp4"), "faithful");
    expect(plan.video.deinterlace).toEqual({ filter: "bwdif", parity: "tff", sendField: false });
    expect(plan.audio?.hum?.hz).toBe(50);
    expect(plan.audio?.loudness?.measured?.inputI).toBeLessThan(-10);
  });

  it("measures loudness through the chain that runs: notched when there is hum, plain if not", async () => {
    // The probe measures plain loudness in the hum's run and again through notches on hum.
    for (const file of ["tff.mp4", "progressive.mp4"]) {
      const plan = await probeForPlan(path(file), "faithful");
      const audio = plan.audio as NonNullable<typeof plan.audio>;
      const plain = await measureLoudness(path(file), { ...audio, hum: null });
      const through = await measureLoudness(path(file), audio);
      expect(plan.measured.loudness).toEqual(through);
      if (audio.hum) expect(through).not.toEqual(plain);
      else expect(through).toEqual(plain);
    }
  });

  it("finds bottom-field-first interlacing and 60 Hz hum", async () => {
    const plan = await probeForPlan(path("bff.mp4"), "enhanced_max");
    expect(plan.video.deinterlace).toEqual({ filter: "bwdif", parity: "bff", sendField: true });
    expect(plan.video.output.fps).toBe(50);
    expect(plan.audio?.hum?.hz).toBe(60);
  });

  it("leaves a clean progressive clip alone: no deinterlace, no hum, no stabilising", async () => {
    const plan = await probeForPlan(path("progressive.mp4"), "enhanced");
    expect(plan.video.deinterlace).toBeNull();
    expect(plan.audio?.hum).toBeNull();
    expect(plan.video.stabilise).toBeNull();
    expect(plan.video.levels).toBeNull();
    // A short clip is analysed whole (long ones in excerpts: see sampled-probe.test.ts).
    expect(plan.measured.samples).toEqual([{ startSec: 0, seconds: expect.closeTo(2, 1) }]);
  });

  it("stabilises a shaky clip but not a smooth pan", async () => {
    const shaky = await probeForPlan(path("shaky.mp4"), "enhanced");
    const pan = await probeForPlan(path("pan.mp4"), "enhanced");
    expect(shaky.video.stabilise).not.toBeNull();
    expect(pan.video.stabilise).toBeNull();
    expect(shaky.measured.shakeRatio).toBeGreaterThan(4 * (pan.measured.shakeRatio ?? 0));
  });

  it("stretches a washed-out picture and recognises black-and-white", async () => {
    const faded = await probeForPlan(path("faded.mp4"), "enhanced");
    expect(faded.video.levels?.gain).toBeGreaterThan(1.1);
    const mono = await probeForPlan(path("mono.mp4"), "enhanced");
    expect(mono.video.saturation).toBe(0);
    expect(mono.audio).toBeNull();
  });
});

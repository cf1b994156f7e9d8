/** A plan in customer words: each decision that changes the video says so, nothing else does. */
import { describe, expect, it } from "vitest";
import type { RestorePlan } from "../../../engines/restore/index.js";
import { planWords } from "./words.js";

const source = { width: 720, height: 576 } as RestorePlan["source"];
const still: RestorePlan["video"] = {
  deinterlace: null,
  rotationCw: 0,
  stabilise: null,
  deflicker: false,
  dropouts: null,
  denoise: [],
  sharpen: null,
  chromaShift: null,
  levels: null,
  saturation: null,
  crop: null,
  scale: null,
  output: { width: 720, height: 576, fps: 25 },
};
const plan = (video: Partial<RestorePlan["video"]>, audio: RestorePlan["audio"] = null) =>
  ({ source, video: { ...still, ...video }, audio }) as RestorePlan;

describe("planWords", () => {
  it("says each repair in the order the chain runs it", () => {
    const words = planWords(
      plan({
        deinterlace: { filter: "bwdif", parity: "bff", sendField: false },
        denoise: [
          {
            filter: "hqdn3d",
            lumaSpatial: 4.4,
            chromaSpatial: 6,
            lumaTemporal: 0,
            chromaTemporal: 0,
          },
        ],
        levels: { gain: 1.3, pivot: 40 },
        saturation: 1.2,
        chromaShift: -3,
        scale: { width: 1440, height: 1080, convertMatrixTo709: true, filter: "zscale" },
        output: { width: 1440, height: 1080, fps: 25 },
      }),
    );
    expect(words).toEqual([
      "deinterlaced, bottom field first",
      "light grain removed",
      "colour moved back in line (3 px)",
      "faded levels corrected",
      "faded colour revived",
      "colours converted for HD screens",
      "upscaled to 1440×1080",
    ]);
  });

  it("names Studio Max's steps and the sound's", () => {
    const words = planWords(
      plan(
        {
          deinterlace: { filter: "bwdif", parity: "tff", sendField: true },
          denoise: [{ filter: "nlmeans", strength: 3, patch: 7, research: 15 }],
          sharpen: { size: 5, amount: 1 },
        },
        {
          highpassHz: 60,
          hum: { hz: 50, harmonics: 4, widthHz: 2 },
          denoise: null,
          loudness: { targetI: -16, truePeak: -1.5, lra: 11, measured: null },
          sampleRate: 48000,
          channels: 2,
        },
      ),
    );
    expect(words).toEqual([
      "deinterlaced, top field first, every field a frame",
      "fine grain removed (non-local means)",
      "soft picture sharpened",
      "50 Hz mains hum removed",
      "loudness evened out",
    ]);
  });

  it("says how hard compression blocks are smoothed: pp7, the weak deblock (plans made before `filter` too), or it beside fspp on the colour", () => {
    const scaled = {
      scale: { width: 900, height: 720, convertMatrixTo709: false, filter: "zscale" as const },
      output: { width: 900, height: 720, fps: 25 },
    };
    const say = (deblock: RestorePlan["video"]["deblock"]) =>
      planWords(plan({ deblock, ...scaled }));
    expect(say({ filter: "pp7", qp: 2 })).toEqual([
      "compression blocks smoothed",
      "upscaled to 900×720",
    ]);
    expect(say({ filter: "deblock", alpha: 0.02, beta: 0.008 })[0]).toBe(
      "faint compression block edges smoothed",
    );
    expect(say({ alpha: 0.02, beta: 0.008 })[0]).toBe("faint compression block edges smoothed");
    expect(say({ filter: "pp7-colour", alpha: 0.02, beta: 0.008, qp: 2 })[0]).toBe(
      "compression blocks smoothed",
    );
    expect(say({ filter: "fspp-colour", alpha: 0.02, beta: 0.008, qp: 1, strength: -4 })[0]).toBe(
      "faint compression block edges and leftover colour grain smoothed",
    );
    expect(say(null)).toEqual(["upscaled to 900×720"]);
  });

  it("says so when nothing changes", () => {
    expect(planWords(plan({}))).toEqual(["kept as it is, re-encoded cleanly"]);
  });
});

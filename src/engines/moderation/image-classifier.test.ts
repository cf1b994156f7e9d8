import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createNsfwjsClassifier,
  DEFAULT_NSFW_THRESHOLDS,
  type ImageClassifier,
  judgeScores,
} from "./image-classifier.js";

const scores = (s: Partial<Record<"Drawing" | "Hentai" | "Neutral" | "Porn" | "Sexy", number>>) =>
  ({ Drawing: 0, Hentai: 0, Neutral: 0, Porn: 0, Sexy: 0, ...s }) as Record<string, number>;

describe("judgeScores", () => {
  it.each([
    [{ Porn: 0.7, Neutral: 0.3 }, "sexual"],
    [{ Hentai: 0.65, Drawing: 0.35 }, "sexual"],
    [{ Porn: 0.35, Hentai: 0.3, Drawing: 0.35 }, "sexual"], // split between the explicit classes
    [{ Sexy: 0.92, Neutral: 0.08 }, "nudity"],
    [{ Sexy: 0.5, Porn: 0.45, Neutral: 0.05 }, "nudity"],
  ] as const)("refuses %j as %s", (s, code) => {
    expect(judgeScores(scores(s))).toMatchObject({ allowed: false, code });
  });

  it("allows neutral images, drawings and moderate Sexy scores (swimwear)", () => {
    expect(judgeScores(scores({ Neutral: 0.9, Sexy: 0.1 })).allowed).toBe(true);
    expect(judgeScores(scores({ Drawing: 0.95, Hentai: 0.05 })).allowed).toBe(true);
    expect(judgeScores(scores({ Sexy: 0.8, Neutral: 0.2 })).allowed).toBe(true);
  });

  it("rejects thresholds that are not probabilities", () => {
    expect(() => createNsfwjsClassifier({ pornThreshold: 0 })).toThrow(RangeError);
    expect(() => createNsfwjsClassifier({ sexyThreshold: 1.5 })).toThrow(RangeError);
    expect(DEFAULT_NSFW_THRESHOLDS.pornThreshold).toBe(0.6);
  });
});

/** A plain drawn landscape: sky, sun, hills, a house. */
function landscapePng(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#3a7bd5"/><stop offset="1" stop-color="#bfe6ff"/>
    </linearGradient></defs>
    <rect width="640" height="480" fill="url(#sky)"/>
    <circle cx="520" cy="90" r="50" fill="#ffd54a"/>
    <ellipse cx="160" cy="470" rx="380" ry="170" fill="#3f8f3a"/>
    <ellipse cx="520" cy="490" rx="320" ry="150" fill="#2e7d32"/>
    <rect x="260" y="250" width="120" height="90" fill="#8d5524"/>
    <polygon points="250,250 320,190 390,250" fill="#b71c1c"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

describe("createNsfwjsClassifier (real model, offline)", () => {
  let classifier: ImageClassifier;
  let flagged: Buffer;

  beforeAll(async () => {
    classifier = createNsfwjsClassifier();
    flagged = await readFile(
      new URL("../../../test/fixtures/moderation/flagged.png", import.meta.url),
    );
    await classifier.classify(await landscapePng()); // loads the model once
  });

  it("allows a plain generated landscape", async () => {
    const verdict = await classifier.classify(await landscapePng());
    expect(verdict.allowed).toBe(true);
    expect(verdict.code).toBeUndefined();
    const total = Object.values(verdict.scores).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 3);
  });

  it("refuses the synthetic fixture the model scores as Porn (see test/fixtures/moderation/make-flagged-image.ts)", async () => {
    const verdict = await classifier.classify(flagged);
    expect(verdict).toMatchObject({ allowed: false, code: "sexual" });
    expect(verdict.scores.Porn).toBeGreaterThan(0.8);
  });

  it("rejects bytes that are not an image", async () => {
    await expect(classifier.classify(Buffer.from("not an image"))).rejects.toThrow();
  });

  it("classifies an image in well under a second once loaded", async () => {
    const runs = 5;
    const started = performance.now();
    for (let i = 0; i < runs; i++) await classifier.classify(flagged);
    const msPerImage = (performance.now() - started) / runs;
    console.info(`nsfwjs MobileNetV2 on wasm: ${msPerImage.toFixed(0)} ms per image`);
    expect(msPerImage).toBeLessThan(2000); // a sanity bound for busy CI cores, not the figure
  });
});

/**
 * Smoke version of `npm run bench:quality`, on a held-out photograph (committed fixture: the
 * bench's held-out `ladybird`, never used to choose a threshold), panned, damaged two ways (grain
 * σ 10 with hum; Video8: top field first, soft, bled, slipped, faded, grainy, hum), restored by
 * the three qualities, and scored against the clean pan beside the upload as is and the floor.
 * Fails when the quality ladder breaks on either (bench/quality/report.ts: Standard ≥ doing
 * nothing, Enhanced ≥ Standard and ≥ doing nothing, Studio Max ≥ Enhanced; luma and chroma SSIM
 * and PSNR) anywhere but the breaks listed as known, when the sound drifts or hum stays.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReference, type Photo } from "../../bench/quality/clips.js";
import { CONTENDERS } from "../../bench/quality/contenders.js";
import { damage, degrade } from "../../bench/quality/degradations.js";
import { evaluate } from "../../bench/quality/evaluate.js";
import { ladderBreaks, markdownTable, type Row } from "../../bench/quality/report.js";

const PHOTO: Photo = {
  name: "ladybird",
  file: fileURLToPath(new URL("./fixtures/ladybird-1024.jpg", import.meta.url)),
  debianPackage: "(committed fixture)",
  set: "heldout",
  zoom: [1.3, 1.4],
  x: [0.5, 0.6],
  y: [0.4, 0.5],
  why: "a red ladybird and blue flowers on bokeh: colour edges and smooth areas",
};
/** A third of PAL: the same damage at a ninth of the pixels, so the suite stays short. */
const TAPE = { width: 240, height: 192, sar: "16/15" };
const REFERENCE = { width: 320, height: 240, fieldRate: 50 };
const SECONDS = 1.6;

/**
 * Breaks of the ladder this fixture still shows (issue 38, open): on Video8 damage Studio Max
 * leads Enhanced by +0.18 dB of luma where the bar is +0.5 (its light fade, blacks at 28, is not
 * found). Grain σ 10's Enhanced chroma under Standard's (−0.13 dB) healed with Enhanced's
 * bilinear 4:4:4 colour and CRF 18 on denoised pictures: 39.39 against 38.87 dB, SSIM 0.946
 * against 0.936 (2026-11-30). Figures and causes: docs/restore.md, "Measured against ground truth".
 */
const KNOWN_BREAKS = new Set(["ladybird tape-c: Studio Max psnrY"]);

/** A break's cell, contender and metric, without its figures ("ladybird tape-c: Studio Max psnrY"). */
const breakKey = (text: string) => (text.split(" vs ")[0] ?? text).replace(/ [-+\d.]+$/, "");

let dir: string;
const rows: Row[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-quality-smoke-"));
});

afterAll(async () => {
  if (rows.length) console.log(markdownTable(rows));
  await rm(dir, { recursive: true, force: true });
});

describe("restore quality ladder (smoke)", () => {
  it("holds on grain and on Video8 damage, with sound in sync and hum removed", async () => {
    const ref = await buildReference(PHOTO, dir, SECONDS, REFERENCE);
    for (const name of ["grain-10", "tape-c"]) {
      const d = damage(name);
      const input = await degrade(d, ref.field, join(dir, `${name}.mkv`), SECONDS, TAPE);
      const result = await evaluate({
        clip: PHOTO.name,
        damage: d,
        input,
        reference: ref.frame,
        referenceSize: REFERENCE,
        contenders: CONTENDERS,
        seconds: SECONDS,
        workDir: dir,
      });
      rows.push(...result.rows);
    }
    // No break beyond the known ones (a ratchet: a known break that heals is said in the log so
    // it can leave the list; any other break fails).
    const breaks = ladderBreaks(rows);
    const healed = [...KNOWN_BREAKS].filter((k) => !breaks.some((b) => breakKey(b) === k));
    if (healed.length) console.info(`known ladder breaks no longer seen: ${healed.join("; ")}`);
    expect(breaks.filter((b) => !KNOWN_BREAKS.has(breakKey(b)))).toEqual([]);
    const restored = (r: Row) => r.contender !== "input" && r.contender !== "floor";
    for (const row of rows.filter(restored)) {
      expect(Math.abs(row.syncSamples ?? Number.NaN)).toBeLessThanOrEqual(1);
      if (row.humDb !== null) expect(row.humDb).toBeLessThan(10);
    }
  }, 300_000);
});

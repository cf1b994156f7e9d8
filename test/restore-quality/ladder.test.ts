/**
 * Smoke version of `npm run bench:quality`: one real photograph (committed fixture), panned,
 * damaged two ways (tape noise; VHS: bottom field first, soft, noisy, bleeding, faded, hum),
 * restored by the floor, the one-line chain and the three qualities, and scored against the
 * clean pan. Fails when the quality ladder breaks on either: Standard ≥ doing nothing,
 * Enhanced ≥ Standard and the one-liner, Studio Max ≥ Enhanced (luma and chroma SSIM, PSNR).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReference, type Photo } from "../../bench/quality/clips.js";
import { CONTENDERS } from "../../bench/quality/contenders.js";
import { DEGRADATIONS, degrade } from "../../bench/quality/degradations.js";
import { evaluate } from "../../bench/quality/evaluate.js";
import { ladderBreaks, markdownTable, type Row } from "../../bench/quality/report.js";

const PHOTO: Photo = {
  name: "boats",
  file: fileURLToPath(new URL("./fixtures/boats-1024.jpg", import.meta.url)),
  debianPackage: "(committed fixture)",
  zoom: [1.25, 1.35],
  x: [0.2, 0.6],
  y: [0.5, 0.5],
  why: "fine detail under a saturated sky",
};
/** A third of PAL: the same damage at a ninth of the pixels, so the suite stays short. */
const TAPE = { width: 240, height: 192, sar: "16/15" };
const REFERENCE = { width: 320, height: 240, fieldRate: 50 };
const SECONDS = 1.6;

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
  it("holds on tape noise and on VHS damage, with sound in sync and hum removed", async () => {
    const ref = await buildReference(PHOTO, dir, SECONDS, REFERENCE);
    for (const name of ["noise", "vhs"]) {
      const damage = DEGRADATIONS.find((d) => d.name === name);
      if (!damage) throw new Error(`no degradation ${name}`);
      const input = await degrade(damage, ref.field, join(dir, `${name}.mkv`), SECONDS, TAPE);
      const result = await evaluate({
        clip: PHOTO.name,
        damage,
        input,
        reference: ref.frame,
        referenceSize: REFERENCE,
        contenders: CONTENDERS,
        seconds: SECONDS,
        workDir: dir,
      });
      rows.push(...result.rows);
    }
    expect(ladderBreaks(rows)).toEqual([]);
    for (const row of rows.filter((r) => r.contender !== "floor" && r.contender !== "oneliner")) {
      expect(Math.abs(row.syncSamples ?? Number.NaN)).toBeLessThanOrEqual(1);
      if (row.humDb !== null) expect(row.humDb).toBeLessThan(10);
    }
  }, 300_000);
});

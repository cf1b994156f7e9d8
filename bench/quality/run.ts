/**
 * `npm run bench:quality` — what each quality does to real pictures, against ground truth.
 *
 * Each photograph (clips.ts) becomes a clean 8 s pan; each degradation (degradations.ts) damages
 * it like digitised tape; the floor, the one-line chain and the three qualities restore it; PSNR
 * and SSIM (luma and chroma) against the clean reference, wall time, bitrate, sound sync and hum
 * left are printed per degradation and overall, with where the quality ladder breaks.
 *
 * Options: --clips boats,fog  --only noise,vhs  --contenders floor,faithful  --seconds 8
 * Writes bench/quality/out/: results.json, table.md, plans.json and frames/*.png (git-ignored);
 * references and damaged clips are cached in out/cache between runs.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildReference, missingPackages, PHOTOS, REFERENCE } from "./clips.js";
import { CONTENDERS, type ContenderName } from "./contenders.js";
import { DEGRADATIONS, degrade } from "./degradations.js";
import { evaluate } from "./evaluate.js";
import { writeFrames } from "./frames.js";
import { ladderBreaks, markdownTable, type Row } from "./report.js";

function option(name: string): string[] | null {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  return v ? v.split(",") : null;
}

const OUT = fileURLToPath(new URL("./out/", import.meta.url));

async function main() {
  const seconds = Number(option("seconds")?.[0] ?? 8);
  const photos = PHOTOS.filter((p) => !option("clips") || option("clips")?.includes(p.name));
  // --only keeps its own order, so the damage that matters most can run first.
  const only = option("only");
  const damages = only
    ? only.map((n) => DEGRADATIONS.find((d) => d.name === n)).filter((d) => d !== undefined)
    : DEGRADATIONS;
  const contenders = CONTENDERS.filter(
    (c) => !option("contenders") || option("contenders")?.includes(c),
  ) as ContenderName[];
  const missing = missingPackages(photos);
  if (missing.length) {
    console.error(`Install the photographs first: apt-get install ${missing.join(" ")}`);
    process.exit(2);
  }
  const cache = join(OUT, "cache");
  const work = join(OUT, "work");
  const framesDir = join(OUT, "frames");
  for (const d of [cache, work, framesDir]) mkdirSync(d, { recursive: true });
  const rows: Row[] = [];
  const plans: Record<string, unknown> = {};
  for (const photo of photos) {
    const ref = await buildReference(photo, cache, seconds);
    for (const damage of damages) {
      const input = join(cache, `${photo.name}-${seconds}s-${damage.name}.mkv`);
      if (!existsSync(input)) await degrade(damage, ref.field, input, seconds);
      const { rows: scored, runs } = await evaluate({
        clip: photo.name,
        damage,
        input,
        reference: ref.frame,
        referenceSize: REFERENCE,
        contenders,
        seconds,
        workDir: work,
        onRow: (row, run) => {
          const s = row.score;
          console.log(
            `${photo.name} ${damage.name} ${row.contender}: SSIM Y ${s.ssimY.toFixed(3)} C ${s.ssimC.toFixed(3)}, ` +
              `PSNR Y ${s.psnrY.toFixed(2)} C ${s.psnrC.toFixed(2)}, ${run.wallSec.toFixed(1)} s, ` +
              `${(run.kbps / 1000).toFixed(1)} Mbit/s, sync ${row.syncSamples}${row.humDb === null ? "" : `, hum ${row.humDb.toFixed(1)} dB`}`,
          );
          if (run.plan) plans[`${photo.name}/${damage.name}/${row.contender}`] = run.plan.notes;
        },
      });
      rows.push(...scored);
      const tiles = [
        { label: "input", file: input },
        ...runs.map((r) => ({ label: r.contender, file: r.output })),
      ];
      await writeFrames(
        ref.frame,
        tiles,
        join(framesDir, `${photo.name}-${damage.name}.png`),
        seconds / 2,
      );
      writeFileSync(join(OUT, "results.json"), JSON.stringify(rows, null, 1));
      writeFileSync(join(OUT, "plans.json"), JSON.stringify(plans, null, 1));
    }
  }
  const table = markdownTable(rows);
  const breaks = ladderBreaks(rows);
  const report = `${table}\n\nLadder breaks (${breaks.length}):\n${breaks.map((b) => `- ${b}`).join("\n")}\n`;
  await mkdir(OUT, { recursive: true });
  writeFileSync(join(OUT, "table.md"), report);
  console.log(`\n${report}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

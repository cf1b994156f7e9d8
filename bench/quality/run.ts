/**
 * `npm run bench:quality` — what each quality does to real pictures, against ground truth.
 *
 * Each photograph (clips.ts) becomes a clean pan; each cell of the tuning and held-out sets
 * (sets.ts) damages it like digitised tape (degradations.ts); the upload as is, the floor and the
 * three qualities are scored against the clean reference (PSNR and SSIM, luma and chroma), with
 * wall time, bitrate, sound sync, hum left and dropout frames against their neighbours; the
 * report puts the two sets side by side and lists every cell where the quality ladder breaks.
 *
 * Options (`npm run bench:quality -- --help` lists them; an unknown one is refused before
 * anything runs): --set tuning|heldout  --clips boats,fog  --only clean,noise (damage names or
 * families)  --contenders floor,faithful  --seconds 3  --frames (side-by-side stills)  --fresh
 * --report (no runs: the tables again from results.json)
 * Writes bench/quality/out/ (git-ignored): results.json (merged with earlier runs' other cells
 * unless --fresh), table.md, cells.md, plans.json; references and damaged clips are cached in
 * out/cache between runs. One ffmpeg at a time: the figures are meant for a shared machine.
 * BENCH_QUALITY_OUT=dir writes there instead, so two experiments never merge into one file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FadeHint } from "../../src/engines/restore/index.js";
import { buildReference, missingPackages, REFERENCE, sceneName } from "./clips.js";
import { CONTENDERS, type ContenderName } from "./contenders.js";
import { degrade } from "./degradations.js";
import { evaluate } from "./evaluate.js";
import { writeFrames } from "./frames.js";
import { cellTable, ladderBreaks, markdownTable, type Row } from "./report.js";
import { type Cell, cells, familyOf } from "./sets.js";

const USAGE = `npm run bench:quality -- [options]   (every cell of both sets by default: hours)
  --set tuning|heldout       one set (default both)
  --clips boats,fog          photographs or graded scenes
  --only clean,noise         damage names (grain-7, blocking-1200) or families (noise, tape)
  --contenders floor,faithful  of: ${CONTENDERS.join(", ")}
  --seconds 3                length of each cell
  --fade faded|not_faded     what a customer would say of the levels, given to every
                             quality (default: the analysis decides); use its own
                             BENCH_QUALITY_OUT, its figures are not the bench's own
  --frames                   side-by-side stills of each cell in out/frames
  --fresh                    do not merge with the results already written
  --report                   no runs: the tables again from results.json
  --help                     this text
BENCH_QUALITY_OUT=dir writes there instead of bench/quality/out/.`;
const VALUED = new Set(["set", "clips", "only", "contenders", "seconds", "fade"]);
const FLAGS = new Set(["frames", "fresh", "report", "help"]);

/** Refuses what would silently run the whole bench: an unknown option, a bad set or contender. */
function checkArgs(argv: readonly string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    // cast: i < argv.length
    const arg = argv[i] as string;
    if (arg === "-h") continue;
    const name = arg.startsWith("--") ? arg.slice(2) : null;
    if (name === null) return `unexpected argument ${arg}`;
    if (FLAGS.has(name)) continue;
    if (!VALUED.has(name)) return `unknown option ${arg}`;
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) return `${arg} needs a value`;
    i++;
  }
  const sets = option("set") ?? [];
  const badSet = sets.find((v) => v !== "tuning" && v !== "heldout");
  if (badSet) return `--set takes tuning or heldout, not ${badSet}`;
  const badContender = (option("contenders") ?? []).find(
    (c) => !(CONTENDERS as readonly string[]).includes(c),
  );
  if (badContender) return `no contender ${badContender}; there are ${CONTENDERS.join(", ")}`;
  const fade = option("fade")?.[0];
  if (fade !== undefined && fade !== "faded" && fade !== "not_faded" && fade !== "auto")
    return `--fade takes faded, not_faded or auto, not ${fade}`;
  const seconds = option("seconds")?.[0];
  if (seconds !== undefined && !(Number(seconds) > 0)) return `--seconds must be a positive number`;
  return null;
}

function option(name: string): string[] | null {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  return v ? v.split(",") : null;
}
const flag = (name: string) => process.argv.includes(`--${name}`);

const OUT = process.env.BENCH_QUALITY_OUT
  ? `${process.env.BENCH_QUALITY_OUT.replace(/\/$/, "")}/`
  : fileURLToPath(new URL("./out/", import.meta.url));
const rowKey = (r: Row) => `${r.set}/${r.clip}/${r.degradation}/${r.contender}`;
const load = () => loadavg()[0]?.toFixed(1) ?? "?";

function selected(): Cell[] {
  const sets = (option("set") ?? ["tuning", "heldout"]) as Array<"tuning" | "heldout">;
  const clips = option("clips");
  const only = option("only");
  return sets
    .flatMap((s) => cells(s))
    .filter(
      (c) => !clips || clips.includes(c.photo.name) || clips.includes(sceneName(c.photo, c.grade)),
    )
    .filter((c) => !only || only.includes(c.damage.name) || only.includes(familyOf(c)));
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return;
  }
  const wrong = checkArgs(args);
  if (wrong) {
    console.error(`${wrong}\n\n${USAGE}`);
    process.exit(2);
  }
  const seconds = Number(option("seconds")?.[0] ?? 3);
  // --report: only the tables again, from the results already written.
  const chosen = flag("report") ? [] : selected();
  if (!flag("report") && chosen.length === 0) {
    console.error("no cell matches --set / --clips / --only (bench/quality/sets.ts lists them)");
    process.exit(2);
  }
  const asked = option("contenders");
  const contenders = (asked ?? CONTENDERS) as ContenderName[];
  const missing = missingPackages(chosen.map((c) => c.photo));
  if (missing.length) {
    console.error(`Install the photographs first: apt-get install ${missing.join(" ")}`);
    process.exit(2);
  }
  const cache = join(OUT, "cache");
  const work = join(OUT, "work");
  const framesDir = join(OUT, "frames");
  for (const d of [cache, work, framesDir]) mkdirSync(d, { recursive: true });
  const resultsPath = join(OUT, "results.json");
  const earlier: Row[] =
    !flag("fresh") && existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, "utf8")) : [];
  const plansPath = join(OUT, "plans.json");
  const plans: Record<string, unknown> =
    !flag("fresh") && existsSync(plansPath) ? JSON.parse(readFileSync(plansPath, "utf8")) : {};
  const rows: Row[] = [];
  const loadBefore = load();
  // cast: checkArgs allowed only the hints' names
  const fade = option("fade")?.[0] as FadeHint | undefined;
  const told = fade ? `, every quality told the tape is ${fade.replace("_", " ")}` : "";
  console.log(
    `${chosen.length} cells × ${contenders.join(", ")}, ${seconds} s each${told}; load ${loadBefore}`,
  );
  for (const cell of chosen) {
    const scene = sceneName(cell.photo, cell.grade);
    const ref = await buildReference(cell.photo, cache, seconds, REFERENCE, cell.grade);
    const input = join(cache, `${scene}-${seconds}s-${cell.damage.name}.mkv`);
    if (!existsSync(input)) await degrade(cell.damage, ref.field, input, seconds);
    const { rows: scored, runs } = await evaluate({
      set: cell.photo.set,
      clip: scene,
      family: familyOf(cell),
      damage: cell.damage,
      input,
      reference: ref.frame,
      referenceSize: REFERENCE,
      contenders,
      seconds,
      ...(fade ? { fade } : {}),
      workDir: work,
      onRow: (row, run) => {
        const s = row.score;
        console.log(
          `${row.set} ${scene} ${cell.damage.name} ${row.contender}: PSNR Y ${s.psnrY.toFixed(2)} C ${s.psnrC.toFixed(2)}, SSIM Y ${s.ssimY.toFixed(4)} C ${s.ssimC.toFixed(4)}, ` +
            `${run.wallSec.toFixed(1)} s, ${(run.kbps / 1000).toFixed(1)} Mbit/s, sync ${row.syncSamples}` +
            `${row.humDb === null ? "" : `, hum ${row.humDb.toFixed(1)} dB`}` +
            `${row.dropoutGapDb == null ? "" : `, streaks ${row.dropoutGapDb.toFixed(2)} dB`}; load ${load()}`,
        );
        if (run.plan) plans[`${scene}/${cell.damage.name}/${row.contender}`] = run.plan.notes;
      },
    });
    rows.push(...scored);
    if (flag("frames")) {
      const tiles = [
        { label: "input", file: input },
        ...runs
          .filter((r) => r.contender !== "input")
          .map((r) => ({ label: r.contender, file: r.output })),
      ];
      const png = join(framesDir, `${scene}-${cell.damage.name}.png`);
      await writeFrames(ref.frame, tiles, png, seconds / 2);
    }
    const fresh = new Set(rows.map(rowKey));
    const merged = [...earlier.filter((r) => !fresh.has(rowKey(r))), ...rows];
    writeFileSync(resultsPath, JSON.stringify(merged, null, 1));
    writeFileSync(plansPath, JSON.stringify(plans, null, 1));
  }
  const fresh = new Set(rows.map(rowKey));
  const all = [...earlier.filter((r) => !fresh.has(rowKey(r))), ...rows];
  const breaks = ladderBreaks(all);
  const report =
    `${markdownTable(all)}\n\nLoad average (1 min) ${loadBefore} at the start, ${load()} at the end of this run.\n\n` +
    `Ladder breaks (${breaks.length}):\n${breaks.map((b) => `- ${b}`).join("\n")}\n`;
  writeFileSync(join(OUT, "table.md"), report);
  writeFileSync(join(OUT, "cells.md"), `${cellTable(all)}\n`);
  console.log(`\n${report}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

/**
 * `npx tsx bench/quality/speed.ts [seconds] [damage]` — how fast each quality restores progressive
 * SD on this machine: a tuning pan (`boats`, MPEG-2 720×576 25p with PCM sound, as the quality
 * bench makes it; clean unless a damage is named, e.g. grain-7: what a grainy tape costs, where
 * Studio Max runs non-local means) looped to `seconds` (default 21), restored once per quality on
 * 2 threads, one at a time. Prints a Markdown table: wall seconds, × real time, what an hour of
 * SD takes at that pace, and the load average (1 min) before and after each run — on a shared
 * machine the load is part of the figure.
 */
import { existsSync, mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";
import { createFfmpegRestoreEngine, type RestoreQuality } from "../../src/engines/restore/index.js";
import { hourOfSdTakes } from "../../src/kinds/restore/rules/pricing.js";
import { buildReference, PHOTOS, REFERENCE } from "./clips.js";
import { damage, degrade } from "./degradations.js";

const OUT = fileURLToPath(new URL("./out/", import.meta.url));
const QUALITIES: Array<[RestoreQuality, string]> = [
  ["faithful", "Standard"],
  ["enhanced", "Enhanced"],
  ["enhanced_max", "Studio Max"],
];

async function main() {
  const seconds = Number(process.argv[2] ?? 21);
  const harm = damage(process.argv[3] ?? "clean");
  const cache = join(OUT, "cache");
  mkdirSync(cache, { recursive: true });
  const photo = PHOTOS.find((p) => p.name === "boats");
  if (!photo) throw new Error("no boats photograph");
  const clean = join(cache, `boats-3s-${harm.name}.mkv`);
  if (!existsSync(clean)) {
    const ref = await buildReference(photo, cache, 3, REFERENCE);
    await degrade(harm, ref.field, clean, 3);
  }
  const input = join(cache, `boats-${harm.name}-looped-${seconds}s.mkv`);
  const loops = Math.ceil(seconds / 3) - 1;
  await runFfmpeg(
    ["-y", "-stream_loop", String(loops), "-i", clean, "-t", String(seconds)].concat([
      "-c",
      "copy",
      input,
    ]),
  );
  const engine = createFfmpegRestoreEngine({ threads: 2 });
  const load = () => (loadavg()[0] as number).toFixed(1);
  const lines = [
    `| quality (${harm.name}) | wall s for ${seconds} s of SD | × real time | an hour of SD takes | load before → after |`,
    "|---|---|---|---|---|",
  ];
  for (const [quality, label] of QUALITIES) {
    const before = load();
    const t0 = performance.now();
    await engine.restore({
      inputPath: input,
      outputPath: join(OUT, `speed-${quality}.mp4`),
      quality,
    });
    const wall = (performance.now() - t0) / 1000;
    const line = `| ${label} | ${wall.toFixed(1)} | ${(seconds / wall).toFixed(2)}× | ${hourOfSdTakes(wall / seconds)} | ${before} → ${load()} |`;
    console.log(line);
    lines.push(line);
  }
  console.log(
    `\n${lines.join("\n")}\n\n${new Date().toISOString()}, ${(await import("node:os")).cpus().length} cores`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

/**
 * `npx tsx bench/cluster-section.ts`: only the running-several-nodes figures (same as in
 * run.ts): cold start, charges through two nodes vs one, rate-limiter overhead.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { benchClusterCharges, benchColdStart } from "./cluster.js";
import { type Figure, printFigure } from "./lib.js";
import { benchRateLimitOverhead } from "./rate-limit.js";

/** Runs the section, handing each figure to `show` as soon as it is measured. */
export async function clusterSection(quick: boolean, show: (f: Figure) => void): Promise<void> {
  show(await benchColdStart(quick ? 3 : 7));
  const charges = await benchClusterCharges(quick ? 600 : 2000);
  if (charges) show(charges);
  const requests = quick ? 1000 : 5000;
  (await benchRateLimitOverhead(undefined, requests)).forEach(show);
  const url = process.env.DATABASE_URL;
  if (url) (await benchRateLimitOverhead(url, requests)).forEach(show);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  clusterSection(process.env.BENCH_QUICK === "1", printFigure).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

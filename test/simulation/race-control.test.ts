/**
 * The negative control of the simulation's race (./race-ops.ts): the same race, on the same
 * seeds, run with the charge swapped for ones that decide on stale data (test/stale-charge.ts),
 * must be caught by the race's checks — a 500 from the CHECK backstop, or an overspend — while
 * the real charge passes them. On PostgreSQL the swap is the charge as it was before issue 34
 * (one statement that locked in CTEs and checked constraints on its snapshot's rows); PGlite
 * runs one transaction at a time and never shows that, so there (and on PostgreSQL too) the
 * swap is a charge that decides on the key's limit as first read.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { createTestApp, type TestApp } from "../app.js";
import { makeImage, stubClassifier } from "../clips/helpers.js";
import { onPostgres } from "../db.js";
import { cacheLimit } from "../stale-charge.js";
import type { Rand } from "./caller-ops.js";
import type { SimKey, SimWallet } from "./model.js";
import { checkRace, runRace, tally } from "./race-ops.js";

type Variant = "current" | "old" | "cached";
const use = vi.hoisted(() => ({ variant: "current" as "current" | "old" | "cached" }));

vi.mock("../../src/services/charge.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/services/charge.js")>();
  const stale = await import("../stale-charge.js");
  const charge: typeof real.charge = (db, input, events) => {
    if (use.variant === "old") return stale.oldCharge(db, input);
    if (use.variant === "cached") return stale.cachedAllowanceCharge(db, input);
    return real.charge(db, input, events);
  };
  return { ...real, charge };
});

let t: TestApp;
let image: Uint8Array;
beforeAll(async () => {
  t = await createTestApp({
    features: [
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      mcpFeature(),
    ],
  });
  image = new Uint8Array(await makeImage(64, 48));
});
afterAll(async () => {
  await t.close();
});

/** mulberry32, as the simulation seeds it. */
function rng(seed: number): Rand {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const ROUNDS = 16;
/**
 * The race each stale charge is caught in. The old statement fails when a raise commits while
 * charges wait behind it, so its race has many of both. The cached charge fails once the limit
 * is below the cache: a lowering first and no changes after it (PGlite finishes a limit change
 * well before a purchase, so later raises would leave the cache merely too cautious).
 */
const SIZES = {
  old: { buys: 60, changes: 10, first: 3000 },
  cached: { buys: 30, changes: 0, first: 1500, lowerFirst: true },
};

/** One race with the given charge: how many 500s, and whether the race's checks failed. */
async function round(variant: Variant, stale: Exclude<Variant, "current">, seed: number) {
  use.variant = variant;
  try {
    const owner = await t.newWallet(100_000);
    const w: SimWallet = {
      id: owner.walletId,
      secret: owner.key,
      balance: 100_000,
      paused: false,
      keys: [],
    };
    // The cached charge learns the key's limit as it is made.
    const onKey = (key: SimKey) => cacheLimit(key.id, key.limit);
    const race = await runRace(t, w, rng(seed), image, { ...SIZES[stale], onKey });
    const caught = await checkRace(t, w, race).then(
      () => null,
      (err: Error) => err.message.split(":")[0] ?? "failed",
    );
    return { ...tally(race), caught };
  } finally {
    use.variant = "current";
  }
}

describe(`the race's negative control (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  const variants: Exclude<Variant, "current">[] = onPostgres ? ["old", "cached"] : ["cached"];
  it.each(variants)(
    "catches the %s charge, which answers 500 or overspends, where the real one passes",
    async (variant) => {
      const seen: string[] = [];
      let caught = 0;
      for (let seed = 1; seed <= ROUNDS && caught === 0; seed++) {
        const stale = await round(variant, variant, seed);
        const real = await round("current", variant, seed);
        seen.push(
          `seed ${seed}: ${variant} ${stale.internal} × 500 (${stale.caught ?? "passed"}); current ${real.internal} × 500`,
        );
        expect(real.caught, `the real charge on seed ${seed}`).toBeNull();
        if (stale.caught) caught++;
      }
      console.log(`race control, ${variant} charge: ${seen.join("; ")}`);
      expect(
        caught,
        `the race's checks never caught the ${variant} charge in ${ROUNDS} rounds`,
      ).toBeGreaterThan(0);
    },
    240_000,
  );
});

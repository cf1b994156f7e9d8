import { describe, expect, it } from "vitest";
import { createPlanCache } from "./local-plan-cache.js";

describe("the local store's plan cache", () => {
  it("reads a plan once and answers it from memory after", async () => {
    const plans = createPlanCache<{ size: number }>();
    let reads = 0;
    const load = async () => {
      reads++;
      return { size: 7 };
    };
    expect(await plans.get("/up/a", load)).toEqual({ size: 7 });
    expect(await plans.get("/up/a", load)).toEqual({ size: 7 });
    expect(reads).toBe(1);
  });

  it("keeps no answer for a folder without a plan: a later read looks again", async () => {
    const plans = createPlanCache<{ size: number }>();
    let plan: { size: number } | null = null;
    expect(await plans.get("/up/b", async () => plan)).toBeNull();
    plan = { size: 3 };
    expect(await plans.get("/up/b", async () => plan)).toEqual({ size: 3 });
  });

  it("forgets a completed or aborted upload's plan, and knows one it was given", async () => {
    const plans = createPlanCache<{ size: number }>();
    plans.set("/up/c", { size: 1 });
    expect(await plans.get("/up/c", async () => ({ size: 2 }))).toEqual({ size: 1 });
    plans.forget("/up/c");
    expect(await plans.get("/up/c", async () => ({ size: 2 }))).toEqual({ size: 2 });
  });

  it("lets the longest-kept plans go past its bound", async () => {
    const plans = createPlanCache<number>();
    for (let i = 0; i < 1025; i++) plans.set(`/up/${i}`, i);
    expect(await plans.get("/up/0", async () => -1)).toBe(-1);
    expect(await plans.get("/up/1024", async () => -1)).toBe(1024);
  });
});

import { describe, expect, it } from "vitest";
import { inLanes, oneTo } from "./lanes.js";

/** A task per item that ends when the test says so, recording what ran and how many at once. */
function gated() {
  const started: number[] = [];
  const ended: number[] = [];
  const open = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();
  let running = 0;
  let most = 0;
  const work = (item: number) =>
    new Promise<void>((resolve, reject) => {
      started.push(item);
      running++;
      most = Math.max(most, running);
      const done = () => {
        running--;
        ended.push(item);
      };
      open.set(item, {
        resolve: () => {
          done();
          resolve();
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
    });
  const settle = async (item: number, error?: Error) => {
    await until(() => open.has(item));
    const gate = open.get(item);
    open.delete(item);
    if (error) gate?.reject(error);
    else gate?.resolve();
  };
  return { work, settle, started, ended, most: () => most };
}

async function until(check: () => boolean) {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setImmediate(r));
  if (!check()) throw new Error("never happened");
}

describe("inLanes", () => {
  it("runs at most `lanes` at once, each lane taking the next item in order when its last ends", async () => {
    const g = gated();
    const all = inLanes(oneTo(6), g.work, { lanes: 2 });
    await until(() => g.started.length === 2);
    expect(g.started).toEqual([1, 2]);
    await g.settle(2);
    await until(() => g.started.length === 3);
    expect(g.started).toEqual([1, 2, 3]);
    for (const n of [1, 3, 4, 5, 6]) await g.settle(n);
    await all;
    expect(g.most()).toBe(2);
    expect(g.ended.sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("stops taking items at the first failure and throws it only once the running ones ended", async () => {
    const g = gated();
    let settled = false;
    const all = inLanes(oneTo(10), g.work, { lanes: 3 }).finally(() => {
      settled = true;
    });
    await until(() => g.started.length === 3);
    await g.settle(2, new Error("part 2 refused"));
    await g.settle(1, new Error("part 1 refused too"));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    await g.settle(3);
    await expect(all).rejects.toThrow("part 2 refused");
    expect(g.started).toEqual([1, 2, 3]);
  });

  it("stops taking items once its signal aborts, and rejects with the reason", async () => {
    const g = gated();
    const stop = new AbortController();
    const all = inLanes(oneTo(5), g.work, { lanes: 2, signal: stop.signal });
    await until(() => g.started.length === 2);
    stop.abort(new Error("cancelled"));
    await g.settle(1);
    await g.settle(2);
    await expect(all).rejects.toThrow("cancelled");
    expect(g.started).toEqual([1, 2]);
  });

  it("does nothing for no items, and never runs more lanes than items", async () => {
    await expect(inLanes([], async () => {}, { lanes: 4 })).resolves.toBeUndefined();
    const seen: number[] = [];
    await inLanes(["a", "b"], async (_item, i) => void seen.push(i), { lanes: 16 });
    expect(seen).toEqual([0, 1]);
    expect(oneTo(0)).toEqual([]);
  });

  it("refuses a lane count that would run nothing, before running anything", async () => {
    for (const lanes of [0, Number.NaN, -2]) {
      let ran = 0;
      await expect(inLanes([1, 2], async () => void ran++, { lanes })).rejects.toThrow(RangeError);
      expect(ran).toBe(0);
    }
    expect(oneTo(3)).toEqual([1, 2, 3]);
  });
});

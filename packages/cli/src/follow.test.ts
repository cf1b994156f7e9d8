import { describe, expect, it } from "vitest";
import { ApiFailure } from "./failures.js";
import { followJob } from "./follow.js";

interface Fake {
  status: string;
  progress: number | null;
}

const TERMINAL = new Set(["done", "failed"]);

describe("followJob", () => {
  it("paces itself when the server answers at once with nothing new (wait not honoured)", async () => {
    const states: Fake[] = [
      { status: "processing", progress: 0 },
      { status: "processing", progress: 0 },
      { status: "processing", progress: 0 },
      { status: "processing", progress: 0.5 },
      { status: "done", progress: 1 },
    ];
    const readAt: number[] = [];
    const waits: number[] = [];
    const started = Date.now();
    const seen: Fake[] = [];
    const job = await followJob<Fake>({
      read: async (waitSec) => {
        readAt.push(Date.now() - started);
        waits.push(waitSec);
        return states.shift() as Fake;
      },
      state: (j) => j,
      terminal: TERMINAL,
      paceMs: 100,
      onUpdate: (j) => seen.push(j),
    });
    expect(job.status).toBe("done");
    // The first read answers at once (the state to draw); the rest are held.
    expect(waits[0]).toBe(0);
    expect(waits.slice(1).every((w) => w === 20)).toBe(true);
    // Two unchanged reads each waited out the pace; the changed ones did not.
    expect((readAt[3] ?? 0) - (readAt[1] ?? 0)).toBeGreaterThanOrEqual(190);
    expect(seen.map((j) => j.progress)).toEqual([0, 0.5, 1]);
  });

  it("rides out server errors with back-off but gives up on a client error at once", async () => {
    let calls = 0;
    const job = await followJob<Fake>({
      read: async () => {
        calls++;
        if (calls === 1) throw new ApiFailure(503, { detail: "restarting" });
        return { status: "failed", progress: null };
      },
      state: (j) => j,
      terminal: TERMINAL,
    });
    expect(job.status).toBe("failed");
    expect(calls).toBe(2);

    await expect(
      followJob<Fake>({
        read: async () => {
          throw new ApiFailure(404, { detail: "Restore job not found." });
        },
        state: (j) => j,
        terminal: TERMINAL,
      }),
    ).rejects.toThrow("Restore job not found.");
  });
});

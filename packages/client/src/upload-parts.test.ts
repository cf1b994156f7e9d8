import { describe, expect, it } from "vitest";
import { KinoraError } from "./errors.js";
import type { PartsState, PartsTransport } from "./upload-parts.js";
import { uploadParts } from "./upload-parts.js";

const PART = 1024;

/** A plan of `count` parts of `PART` bytes, nothing arrived, CRC32. */
function plan(count: number): PartsState {
  return {
    status: "open",
    size_bytes: count * PART,
    part_size_bytes: PART,
    part_count: count,
    checksum: "crc32",
    parts: [],
  };
}

/** A store that answers every PUT with an ETag, recording the part numbers in the order sent. */
function store() {
  const puts: number[] = [];
  const fetch = (async (url: string) => {
    puts.push(Number(new URL(url).searchParams.get("part")));
    return new Response(null, { status: 200, headers: { etag: `"e${puts.length}"` } });
  }) as typeof globalThis.fetch;
  return { puts, fetch };
}

function transport(
  state: PartsState,
  report: PartsTransport["report"],
): PartsTransport & { links: PartsTransport["links"] } {
  return {
    state: async () => state,
    links: async (parts) =>
      parts.map((p) => ({
        part_number: p.part_number,
        size_bytes: PART,
        url: `http://store.invalid/put?part=${p.part_number}`,
        headers: {},
      })),
    report,
  };
}

/** Resolves once `check` holds, or fails after `ms` (what a lane stuck on a report would do). */
async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("uploadParts lanes", () => {
  it("sends the lane's next part while the last one's report is still on its way", async () => {
    const { puts, fetch } = store();
    const held: (() => void)[] = [];
    const reported: number[] = [];
    const t = transport(plan(3), (part) => {
      reported.push(part.part_number);
      // Every report waits until all three parts are on the store.
      return new Promise<void>((resolve) => held.push(resolve));
    });
    const done = uploadParts(t, new Uint8Array(3 * PART), { concurrency: 1, fetch });
    await until(() => puts.length === 3);
    expect(puts).toEqual([1, 2, 3]);
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    // Sent, but not reported: the upload is not done until the server recorded every part.
    expect(finished).toBe(false);
    for (const release of held) release();
    await expect(done).resolves.toMatchObject({ sent: [1, 2, 3], had: [] });
    expect(reported.sort()).toEqual([1, 2, 3]);
  });

  it("stops at a report the server refuses, with its error, and sends no more parts", async () => {
    const { puts, fetch } = store();
    const refusal = new KinoraError("report part", 409, {
      code: "wrong_state",
      detail: "This job was cancelled and refunded; its parts were deleted.",
      request_id: "req_test",
    });
    const t = transport(plan(6), async (part) => {
      if (part.part_number === 1) throw refusal;
      await new Promise((r) => setTimeout(r, 50));
    });
    await expect(
      uploadParts(t, new Uint8Array(6 * PART), { concurrency: 1, fetch, maxRetries: 0 }),
    ).rejects.toBe(refusal);
    // Part 2 may have gone out while part 1's report was answered; nothing after the refusal.
    expect(puts.length).toBeLessThanOrEqual(2);
  });
});

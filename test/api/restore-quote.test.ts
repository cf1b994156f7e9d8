import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { createTestApp, type TestApp } from "../app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ features: [restoreFeature({ noExecutor: true })] });
});
afterAll(async () => {
  await t.close();
});

const quote = (body: unknown) => t.call("POST", "/cloud/quote", { body });

describe("POST /cloud/quote", () => {
  it("prices by quality and started minute, ×1.5 above 1920×1080 rounded up", async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ duration_sec: 60, quality: "faithful" }, 299],
      [{ duration_sec: 300, quality: "faithful" }, 299],
      [{ duration_sec: 300.5, quality: "faithful" }, 349],
      [{ duration_sec: 600, quality: "enhanced" }, 949],
      [{ duration_sec: 60 }, 499],
      [{ duration_sec: 60, quality: "enhanced_max" }, 899],
      [{ duration_sec: 421, quality: "enhanced_max" }, 899 + 3 * 160],
      [{ duration_sec: 60, quality: "enhanced_max", width: 3840, height: 2160 }, 1349],
      [{ duration_sec: 60, quality: "faithful", width: 1920, height: 1080 }, 299],
      [{ duration_sec: 60, quality: "faithful", width: 1920, height: 1081 }, 449],
      [{ duration_sec: 7200, quality: "faithful" }, 299 + 115 * 50],
      [{ duration_sec: 6 * 3600, quality: "faithful" }, 299 + 355 * 50],
    ];
    for (const [body, cents] of cases) {
      const res = await quote(body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.amount_cents, JSON.stringify(body)).toBe(cents);
      expect(res.body.display).toBe(
        `$${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`,
      );
    }
  });

  it("states the server's limits, so a caller with a tape learns them before paying", async () => {
    const res = await quote({ duration_sec: 60 });
    expect(res.body.limits).toEqual({
      max_duration_sec: 6 * 3600,
      max_width: 7680,
      max_height: 4320,
      max_size_bytes: 50 * 1024 ** 3,
      summary: "Videos up to 6 hours and 50 GiB, up to 7680×4320.",
    });
    // The price table states the same limits.
    const table = await t.call("GET", "/cloud/prices");
    expect(table.body.limits).toMatchObject(res.body.limits);
  });

  it("answers 422 naming the field over a limit", async () => {
    for (const [body, field] of [
      [{ duration_sec: 6 * 3600 + 1 }, "duration_sec"],
      [{ duration_sec: 49 * 3600 }, "duration_sec"],
      [{ duration_sec: 60, width: 7681 }, "width"],
      [{ duration_sec: 60, height: 4321 }, "height"],
    ] as const) {
      const res = await quote(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail).toMatch(new RegExp(`^${field}:`));
    }
  });

  it("answers 400 for malformed input, naming the field: 422 is only for over a limit", async () => {
    for (const [body, field] of [
      [{ duration_sec: 0 }, "duration_sec"],
      [{ duration_sec: -5 }, "duration_sec"],
      [{ duration_sec: 60, height: 0 }, "height"],
      [{ duration_sec: 60, width: -1 }, "width"],
    ] as const) {
      const res = await quote(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.detail).toMatch(new RegExp(`^${field}:`));
    }
    const bad = [
      {},
      { duration_sec: "60" },
      { duration_sec: 60, quality: "best" },
      { duration_sec: 60, x: 1 },
    ];
    for (const body of bad) {
      const res = await quote(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.detail).toBeTruthy();
    }
  });
});

describe("GET /cloud/prices", () => {
  it("returns the table with labels and limits", async () => {
    const res = await t.call("GET", "/cloud/prices");
    expect(res.status).toBe(200);
    expect(res.body.qualities.map((q: { label: string }) => q.label)).toEqual([
      "Standard",
      "Enhanced",
      "Studio Max",
    ]);
    expect(res.body.qualities[0]).toMatchObject({ base_cents: 299, per_extra_minute_cents: 50 });
    expect(res.body.limits).toMatchObject({
      max_size_bytes: 50 * 1024 ** 3,
      max_duration_sec: 6 * 3600,
      summary: "Videos up to 6 hours and 50 GiB, up to 7680×4320.",
    });
  });
});

describe("worker API without WORKER_TOKEN", () => {
  it("answers 503 saying to set WORKER_TOKEN", async () => {
    const res = await t.call("POST", "/worker/claim", {
      body: { kinds: ["restore"], worker_id: "w" },
    });
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/WORKER_TOKEN/);
  });
});

describe("the operator's restore limits (RESTORE_MAX_DURATION_SEC, RESTORE_MAX_SIZE_BYTES)", () => {
  it("refuse past the server's own limits and show them in the price table", async () => {
    const small = await createTestApp({
      features: [restoreFeature({ noExecutor: true })],
      env: { RESTORE_MAX_DURATION_SEC: "3600", RESTORE_MAX_SIZE_BYTES: "1GiB" },
    });
    try {
      const over = await small.call("POST", "/cloud/quote", { body: { duration_sec: 3601 } });
      expect(over.status).toBe(422);
      expect(over.body.detail).toBe(
        "duration_sec: must be at most 3600 seconds (1 hour); split longer videos.",
      );
      const ok = await small.call("POST", "/cloud/quote", { body: { duration_sec: 3600 } });
      expect(ok.status).toBe(200);
      expect(ok.body.limits.summary).toBe("Videos up to 1 hour and 1 GiB, up to 7680×4320.");
      const prices = await small.call("GET", "/cloud/prices");
      expect(prices.body.limits).toMatchObject({
        max_duration_sec: 3600,
        max_size_bytes: 1024 ** 3,
        summary: "Videos up to 1 hour and 1 GiB, up to 7680×4320.",
      });
      const owner = await small.newWallet(5000);
      const big = await small.call("POST", "/cloud/jobs", {
        key: owner.key,
        body: {
          duration_sec: 60,
          filename: "tape.dv",
          content_type: "video/dv",
          size: 1024 ** 3 + 1,
        },
      });
      expect(big.status).toBe(422);
      expect(big.body.detail).toBe("size: must be at most 1073741824 bytes (1 GiB).");
    } finally {
      await small.close();
    }
  });
});

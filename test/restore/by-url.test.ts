/**
 * Restore by `video_url`, end to end: a local HTTP server serves the videos (the test seam lets
 * the SSRF guard reach 127.0.0.1), kinora is served over real HTTP with an in-process worker and
 * the real ffmpeg engine, and the caller is a plain HTTP client or the official MCP SDK client
 * (after tools/list). Proves the fetch, the measured-length price (one adjustment entry, once,
 * even when the worker retries), fetch failures (failed, video_fetch_failed, refunded once) and
 * that a private address is refused at creation without the seam.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFfmpegRestoreEngine } from "../../src/engines/restore/index.js";
import type { FeatureFactory } from "../../src/feature.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { WorkError } from "../../src/jobs/work.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { createRestoreExecutor } from "../../src/kinds/restore/executor/executor.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import type { VideoFetchSeam } from "../../src/kinds/restore/services/deps.js";
import { stubClassifier } from "../clips/helpers.js";
import { call, connect, type Json, refusal } from "../mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { makeVideo } from "./helpers.js";

const dir = mkdtempSync(path.join(tmpdir(), "kinora-by-url-"));
let video: { path: string; sizeBytes: number; bytes: Buffer };

/** The caller's video host: what each path serves, and how often it was asked. */
const hits = new Map<string, number>();
let host: ReturnType<typeof createServer>;
let hostUrl: string;
function serveVideos(req: IncomingMessage, res: ServerResponse) {
  const p = new URL(req.url ?? "/", "http://x").pathname;
  hits.set(p, (hits.get(p) ?? 0) + 1);
  if (p.startsWith("/videos/")) {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": video.bytes.length });
    return res.end(video.bytes);
  }
  if (p === "/page.html") {
    res.writeHead(200, { "content-type": "text/html" });
    return res.end("<html>not a video</html>");
  }
  res.writeHead(404, { "content-type": "text/plain" });
  res.end("not found");
}

/**
 * The next restore attempt after this is set fails after measuring: a crash (retried) or a
 * final failure (the job fails and is refunded).
 */
let failNextRestore: "crash" | "final" | false = false;
const seam: VideoFetchSeam = { allowPrivateForTests: (address) => address === "127.0.0.1" };
const engine = createFfmpegRestoreEngine();
const flakyEngine = {
  ...engine,
  name: engine.name,
  measureDurationSec: engine.measureDurationSec.bind(engine),
  async restore(job: Parameters<typeof engine.restore>[0]) {
    const how = failNextRestore;
    failNextRestore = false;
    if (how === "crash") throw new Error("worker crashed mid-restore (test)");
    if (how === "final") throw new WorkError({ kind: "final", message: "engine gave up (test)" });
    return engine.restore(job);
  },
};
/** The restore feature with the video seam, its executor on the engine above. */
const restoreWithSeam: FeatureFactory = async (p) => {
  const feature = await restoreFeature({ videoFetch: seam })(p);
  return {
    ...feature,
    executors: [createRestoreExecutor({ engine: flakyEngine, videoFetch: seam })],
  };
};

let s: ServedApp;
beforeAll(async () => {
  const made = await makeVideo(dir, 1.5, "short.mp4");
  video = { ...made, bytes: readFileSync(made.path) };
  host = createServer(serveVideos);
  await new Promise<void>((r) => host.listen(0, "127.0.0.1", r));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  s = await serveTestApp({
    features: [
      restoreWithSeam,
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      paymentsFeature(),
      mcpFeature(),
    ],
    workers: 1,
  });
});
afterAll(async () => {
  await s?.close();
  host?.closeAllConnections();
  await new Promise((r) => host?.close(r));
});

/** A call over real HTTP to the served app. */
async function rest(method: string, p: string, opts: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${s.url}${p}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function agent(balance: number, limit: number) {
  const owner = await s.t.newWallet(balance);
  const made = await rest("POST", "/wallet/keys", {
    key: owner.key,
    body: { limit_cents: limit, ask_before_spending: false },
  });
  return { owner, key: made.body.key as string };
}

/** Follows a job over REST with ?wait= until it ends. */
async function untilEnded(id: string): Promise<Json> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { body } = await rest("GET", `/cloud/jobs/${id}?wait=20`);
    if (["done", "failed", "refunded", "cancelled", "expired"].includes(body.job.status))
      return body.job;
    if (Date.now() > deadline) throw new Error(`${id} still ${body.job.status}`);
  }
}

const balanceOf = async (key: string) =>
  (await rest("GET", "/wallet", { key })).body.wallet.balance_cents as number;

async function ledger(jobId: string) {
  const rows = await s.t.deps.db
    .selectFrom("ledger_entries")
    .select(["kind", "amount_cents", "key_amount_cents", "reason"])
    .where("job_id", "=", jobId)
    .orderBy("id")
    .execute();
  return rows.map((r) => ({ ...r, amount_cents: Number(r.amount_cents) }));
}

describe("restore by video_url over REST", () => {
  it("fetches, restores and downloads: nothing to upload or start", async () => {
    const { owner, key } = await agent(5000, 3000);
    const created = await rest("POST", "/cloud/jobs", {
      key,
      body: { duration_sec: 2, quality: "faithful", video_url: `${hostUrl}/videos/a.mp4` },
    });
    expect(created.status).toBe(200);
    const c = created.body;
    expect(c.upload_url).toBeUndefined();
    expect(c.job).toMatchObject({ status: "processing", filename: "a.mp4", amount_cents: 299 });
    expect(c.next).toMatch(/Nothing to upload or start/);
    expect(c.next).toContain(`GET /cloud/jobs/${c.job.id}`);
    const job = await untilEnded(c.job.id);
    expect(job).toMatchObject({ status: "done", amount_cents: 299, error: null });
    expect(job.measured_duration_sec).toBeCloseTo(1.5, 0);
    const download = await fetch(job.download_url);
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect(hits.get("/videos/a.mp4")).toBe(1);
    expect(await balanceOf(owner.key)).toBe(5000 - 299);
    expect((await ledger(c.job.id)).map((e) => e.kind)).toEqual(["charge"]);
  });

  it("declared 10 s, really 1.5 s: the same base price, so no adjustment", async () => {
    const { owner, key } = await agent(5000, 3000);
    const c = (
      await rest("POST", "/cloud/jobs", {
        key,
        body: { duration_sec: 10, quality: "enhanced", video_url: `${hostUrl}/videos/ten.mp4` },
      })
    ).body;
    const job = await untilEnded(c.job.id);
    expect(job).toMatchObject({ status: "done", amount_cents: 499, declared_amount_cents: 499 });
    expect((await ledger(c.job.id)).map((e) => e.kind)).toEqual(["charge"]);
    expect(await balanceOf(owner.key)).toBe(5000 - 499);
  });

  it("declared 10 min, really 1.5 s: one adjustment for the difference, once, though the worker retried", async () => {
    const { owner, key } = await agent(5000, 3000);
    failNextRestore = "crash";
    const c = (
      await rest("POST", "/cloud/jobs", {
        key,
        body: { duration_sec: 600, quality: "enhanced", video_url: `${hostUrl}/videos/long.mp4` },
      })
    ).body;
    // Enhanced: $4.99 for 5 minutes, then $0.90 a started minute: 10 min = $9.49.
    expect(c.job.amount_cents).toBe(949);
    expect(c.wallet.balance_cents).toBe(5000 - 949);
    expect(c.wallet.agent_key.spent_cents).toBe(949);
    const job = await untilEnded(c.job.id);
    expect(job).toMatchObject({ status: "done", amount_cents: 499, declared_amount_cents: 949 });
    expect(job.display_price).toBe("$4.99");
    // The first attempt crashed after noting the length; the second found the file stored.
    const row = await s.t.deps.db
      .selectFrom("restore_jobs")
      .select(["attempts"])
      .where("id", "=", c.job.id)
      .executeTakeFirstOrThrow();
    expect(row.attempts).toBe(2);
    expect(hits.get("/videos/long.mp4")).toBe(1);
    const entries = await ledger(c.job.id);
    expect(entries.map((e) => [e.kind, e.amount_cents])).toEqual([
      ["charge", -949],
      ["adjustment", 450],
    ]);
    expect(entries[1]?.reason).toMatch(/measured 0:02 long \(declared 10:00\).*\$4\.50 back/);
    expect(await balanceOf(owner.key)).toBe(5000 - 499);
    const wallet = (await rest("GET", "/wallet", { key })).body.wallet;
    expect(wallet.agent_key.spent_cents).toBe(499);
  });

  it("measured shorter, then failed: the refund gives back only what is still held", async () => {
    const { owner, key } = await agent(5000, 3000);
    failNextRestore = "final";
    const c = (
      await rest("POST", "/cloud/jobs", {
        key,
        body: { duration_sec: 600, quality: "enhanced", video_url: `${hostUrl}/videos/fails.mp4` },
      })
    ).body;
    const job = await untilEnded(c.job.id);
    expect(job).toMatchObject({ status: "failed", amount_cents: 499 });
    expect((await ledger(c.job.id)).map((e) => [e.kind, e.amount_cents])).toEqual([
      ["charge", -949],
      ["adjustment", 450],
      ["refund", 499],
    ]);
    expect(await balanceOf(owner.key)).toBe(5000);
    expect((await rest("GET", "/wallet", { key })).body.wallet.agent_key.spent_cents).toBe(0);
  });

  it.each([
    ["404", "/missing.mp4", {}, /answered HTTP 404/],
    ["a web page", "/page.html", {}, /served text\/html, not a video/],
    [
      "more than the declared size",
      "/videos/big.mp4",
      { size: 1000 },
      /served more than 1000 bytes but size was declared as 1000/,
    ],
  ])(
    "a fetch that fails (%s) ends failed, video_fetch_failed, refunded once",
    async (_what, p, extra, why) => {
      const { owner, key } = await agent(5000, 3000);
      const c = (
        await rest("POST", "/cloud/jobs", {
          key,
          body: { duration_sec: 30, quality: "faithful", video_url: `${hostUrl}${p}`, ...extra },
        })
      ).body;
      expect(c.job.status).toBe("processing");
      const job = await untilEnded(c.job.id);
      expect(job).toMatchObject({ status: "failed", error_code: "video_fetch_failed" });
      expect(job.error).toMatch(why);
      expect(job.download_url).toBeNull();
      const entries = await ledger(c.job.id);
      expect(entries.map((e) => [e.kind, e.amount_cents])).toEqual([
        ["charge", -299],
        ["refund", 299],
      ]);
      expect(await balanceOf(owner.key)).toBe(5000);
    },
  );
});

describe("restore by video_url through the MCP SDK client", () => {
  it("create_restore with video_url, get_restore until done, the measured price", async () => {
    const { owner, key } = await agent(5000, 3000);
    const client = await connect(s.url, key);
    const created = await call(client, "create_restore", {
      duration_sec: 301,
      quality: "faithful",
      video_url: `${hostUrl}/videos/mcp.mp4`,
    });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const c = created.structuredContent;
    // Standard: $2.99 for 5 minutes and $0.50 for the started 6th.
    expect(c.job).toMatchObject({ status: "processing", amount_cents: 349 });
    expect(c.next).toContain("the get_restore tool");
    expect(c.next).not.toMatch(/GET \/cloud/);
    let job: Json;
    for (let i = 0; i < 20; i++) {
      const res = await call(client, "get_restore", { job_id: c.job.id, wait_seconds: 20 });
      job = res.structuredContent.job;
      if (job.status !== "processing") break;
    }
    expect(job).toMatchObject({ status: "done", amount_cents: 299 });
    expect((await fetch(job.download_url)).status).toBe(200);
    expect((await ledger(c.job.id)).map((e) => [e.kind, e.amount_cents])).toEqual([
      ["charge", -349],
      ["adjustment", 50],
    ]);
    expect(await balanceOf(owner.key)).toBe(5000 - 299);
    await client.close();
  });

  it("a fetch failure reads as failed, video_fetch_failed, refunded", async () => {
    const { owner, key } = await agent(5000, 3000);
    const client = await connect(s.url, key);
    const created = await call(client, "create_restore", {
      duration_sec: 5,
      quality: "faithful",
      video_url: `${hostUrl}/gone.mp4`,
    });
    const id = created.structuredContent.job.id;
    let job: Json;
    for (let i = 0; i < 20; i++) {
      job = (await call(client, "get_restore", { job_id: id, wait_seconds: 20 })).structuredContent
        .job;
      if (job.status !== "processing") break;
    }
    expect(job).toMatchObject({ status: "failed", error_code: "video_fetch_failed" });
    expect(await balanceOf(owner.key)).toBe(5000);
    await client.close();
  });
});

describe("a private video_url without the test seam", () => {
  let plain: ServedApp;
  beforeAll(async () => {
    plain = await serveTestApp({
      features: [
        restoreFeature({ noExecutor: true }),
        clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
        paymentsFeature(),
        mcpFeature(),
      ],
    });
  });
  afterAll(async () => {
    await plain?.close();
  });

  it.each([
    "http://127.0.0.1:9/v.mp4",
    "http://localhost/v.mp4",
    "http://10.0.0.7/v.mp4",
    "http://[::1]/v.mp4",
    "http://169.254.169.254/latest/meta-data",
  ])(
    "refuses %s at creation over REST and MCP: 400 video_fetch_failed, nothing charged",
    async (url) => {
      const owner = await plain.t.newWallet(5000);
      const made = await plain.t.call("POST", "/wallet/keys", {
        key: owner.key,
        body: { limit_cents: 3000, ask_before_spending: false },
      });
      const key = made.body.key as string;
      const res = await fetch(`${plain.url}/cloud/jobs`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ duration_sec: 5, video_url: url }),
      });
      const body = (await res.json()) as Json;
      expect(res.status).toBe(400);
      expect(body.code).toBe("video_fetch_failed");
      expect(body.detail).toMatch(/video_url/);
      const client = await connect(plain.url, key);
      const refused = refusal(
        await call(client, "create_restore", { duration_sec: 5, video_url: url }),
      );
      expect(refused.code).toBe("video_fetch_failed");
      await client.close();
      const wallet = await plain.t.call("GET", "/wallet", { key: owner.key });
      expect(wallet.body.wallet.balance_cents).toBe(5000);
      const jobs = await plain.t.deps.db
        .selectFrom("restore_jobs")
        .select("id")
        .where("wallet_id", "=", owner.walletId)
        .execute();
      expect(jobs).toEqual([]);
    },
  );
});

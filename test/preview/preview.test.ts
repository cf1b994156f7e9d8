/**
 * The free restore preview end to end over REST and MCP, with the real ffmpeg engine on a small
 * damaged clip (128×96, 2 s, interlaced, grainy): every quality has a clip of at most 6 s,
 * stills and the plan in words; nothing is charged; only the key that made it reads it; bad
 * input is a 400 with a detail; the hour's previews run out with a 429; a video longer than a
 * restore takes is refused (uploaded, or fetched from a video_url); retention deletes its files.
 * Where the excerpt is taken from a long video: src/kinds/preview/executor/excerpt.test.ts.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobEngineDeps } from "../../src/feature.js";
import { consoleFeature } from "../../src/features/console.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { sweepJobs } from "../../src/jobs/retention.js";
import { previewFeature } from "../../src/kinds/preview/kind.js";
import { previewFileKey, previewJobs } from "../../src/kinds/preview/services/definition.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { call, connect, refusal } from "../mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { damagedClip, packedClip, plainClip } from "./media.js";

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), "kinora-preview-"));
let s: ServedApp;
let clip: { path: string; sizeBytes: number };
let long: { path: string; sizeBytes: number };
let packed: { path: string; sizeBytes: number };
let host: ReturnType<typeof createServer>;
let hostUrl: string;

beforeAll(async () => {
  [clip, long, packed] = await Promise.all([
    damagedClip(dir, 2, 0),
    plainClip(dir, 62, "long.mp4"),
    packedClip(dir, "packed.mp4"),
  ]);
  s = await serveTestApp({
    features: [
      restoreFeature({ noExecutor: true }),
      previewFeature(),
      mcpFeature(),
      consoleFeature(),
    ],
    workers: 1,
    env: { PREVIEW_PER_HOUR: "4", RESTORE_MAX_DURATION_SEC: "60", ALLOW_LOOPBACK_URLS: "1" },
  });
  s.t.clock.set(new Date());
  const bytes = readFileSync(long.path);
  host = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": bytes.length });
    res.end(bytes);
  });
  await new Promise<void>((r) => host.listen(0, "127.0.0.1", r));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/tape.mp4`;
}, 60_000);
afterAll(async () => {
  host?.close();
  await s?.close();
});

/** Creates an upload preview and sends its file; the created answer. */
async function uploaded(
  key: string,
  video: { path: string; sizeBytes: number },
  extra: Record<string, unknown> = {},
) {
  const created = await s.t.call("POST", "/preview/jobs", {
    key,
    body: { size: video.sizeBytes, content_type: "video/mp4", ...extra },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const put = await fetch(created.body.upload_url, {
    method: "PUT",
    headers: created.body.upload_headers,
    body: new Uint8Array(readFileSync(video.path)),
  });
  expect(put.status).toBeLessThan(300);
  return created.body;
}

async function until(key: string, id: string, statuses: string[]) {
  for (const deadline = Date.now() + 120_000; ; ) {
    const job = (await s.t.call("GET", `/preview/jobs/${id}?wait=20`, { key })).body.job;
    if (statuses.includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`preview ${id} is ${job.status}: ${job.error}`);
  }
}

const bytesOf = async (url: string) => new Uint8Array(await (await fetch(url)).arrayBuffer());

let done: { id: string; key: string; agentKey: string };

describe("a preview over REST", () => {
  it("restores the video's few seconds at every quality, free, with stills and words", async () => {
    const owner = await s.t.newWallet(500);
    const agent = await s.t.newAgentKey(owner.key, 100);
    const before = (await s.t.call("GET", "/wallet", { key: owner.key })).body;
    // Told the tape has faded: the enhanced qualities are asked to correct its levels (this
    // test pattern already spans the range, so there is nothing to stretch; tone.test.ts).
    const created = await uploaded(agent.key, clip, { fade: "faded" });
    expect(created.job).toMatchObject({ status: "awaiting_upload", price_cents: 0, fade: "faded" });
    expect(created.next).toContain(`/preview/jobs/${created.job.id}/start`);
    const started = await s.t.call("POST", `/preview/jobs/${created.job.id}/start`, {
      key: agent.key,
    });
    expect(started.status).toBe(200);
    const t0 = Date.now();
    const job = await until(agent.key, created.job.id, ["done", "failed", "refused"]);
    console.info(`preview of a 2 s 128x96 interlaced clip: ${Date.now() - t0} ms`);
    expect(job.status, job.error).toBe("done");
    const p = job.preview;
    expect(p).toMatchObject({ start_sec: 0 });
    expect(p.length_sec).toBeCloseTo(2, 0);
    expect(p.duration_sec).toBeCloseTo(2, 0);
    expect(p.found[0]).toMatch(/^grain σ/);
    expect(p.qualities.map((q: { quality: string }) => q.quality)).toEqual([
      "faithful",
      "enhanced",
      "enhanced_max",
    ]);
    for (const q of p.qualities) {
      expect(q.words.join("; ")).toContain("deinterlaced, top field first");
      expect(q.words.length).toBeGreaterThan(0);
      const pair = await bytesOf(q.pair_url);
      expect([pair[0], pair[1]]).toEqual([0xff, 0xd8]);
      const file = path.join(dir, `${q.quality}.mp4`);
      writeFileSync(file, await bytesOf(q.clip_url));
      const { stdout } = await run("ffprobe", [
        "-v",
        "error",
        "-show_entries",
        "format=duration",
        "-of",
        "csv=p=0",
        file,
      ]);
      expect(Number(stdout)).toBeLessThanOrEqual(6);
      expect(Number(stdout)).toBeGreaterThan(1.5);
    }
    expect(p.qualities[0].words).toContain("heavy grain removed");
    expect(p.qualities[2].words).toContain("fine grain removed (non-local means)");
    expect([...(await bytesOf(p.before_url)).slice(0, 2)]).toEqual([0xff, 0xd8]);
    // Free: the balance is as it was, and the ledger has no entry for it.
    const after = (await s.t.call("GET", "/wallet", { key: owner.key })).body;
    expect(after.balance_cents).toBe(before.balance_cents);
    const entries = await s.t.database.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("wallet_id", "=", owner.walletId)
      .execute();
    expect(entries.filter((e) => JSON.stringify(e).includes(created.job.id))).toEqual([]);
    done = { id: created.job.id, key: owner.key, agentKey: agent.key };
  }, 150_000);

  it("is not found by another wallet's key, nor by another agent key of the same wallet", async () => {
    const stranger = await s.t.newWallet(100);
    const other = await s.t.call("GET", `/preview/jobs/${done.id}`, { key: stranger.key });
    expect(other.status).toBe(404);
    expect(other.body.detail).toMatch(/^Preview not found\./);
    const agent = await s.t.newAgentKey(done.key, 100);
    expect((await s.t.call("GET", `/preview/jobs/${done.id}`, { key: agent.key })).status).toBe(
      404,
    );
    expect((await s.t.call("GET", "/preview/jobs", { key: stranger.key })).body.jobs).toEqual([]);
    // The wallet's own key sees its keys' previews, as with every job.
    expect((await s.t.call("GET", "/preview/jobs", { key: done.key })).body.jobs[0].id).toBe(
      done.id,
    );
  });

  it("shows in the owner's console: a link from the job, a page with each quality's slider", async () => {
    const owner = await signedInPages(done.key);
    const html = await owner("/console");
    expect(html).toContain(`href="/console/jobs/${done.id}/preview"`);
    const page = await owner(`/console/jobs/${done.id}/preview`);
    for (const label of ["Standard", "Enhanced", "Studio Max"])
      expect(page).toContain(`<h2>${label}</h2>`);
    expect(page).toContain("deinterlaced, top field first");
    expect(page).toMatch(
      /class="wipe-before"><img src="[^"]+" width="384" height="288" alt="Before"/,
    );
    const stranger = await signedInPages((await s.t.newWallet(100)).key);
    expect(await stranger(`/console/jobs/${done.id}/preview`)).toContain("<h1>No preview</h1>");
  });

  it("refuses bad input with a detail, making nothing", async () => {
    const owner = await s.t.newWallet(100);
    const cases: [unknown, number, RegExp][] = [
      [{}, 400, /^size: is required/],
      [{ size: 10 }, 400, /^content_type: is required/],
      [{ size: 10, content_type: "image/png" }, 400, /^content_type: must be a video type/],
      [{ size: -3, content_type: "video/mp4" }, 400, /^size:/],
      [{ video_url: hostUrl, size: 10, content_type: "video/mp4" }, 400, /^video_url: give either/],
      [{ video_url: "ftp://example.com/x.mp4" }, 400, /video_url/],
      [{ size: 10, content_type: "video/mp4", quality: "enhanced" }, 400, /quality/],
      [{ size: 10, content_type: "video/mp4", fade: "yes" }, 400, /^fade: must be auto, faded/],
    ];
    for (const [body, status, detail] of cases) {
      const res = await s.t.call("POST", "/preview/jobs", { key: owner.key, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.detail).toMatch(detail);
    }
    expect((await s.t.call("GET", "/preview/jobs", { key: owner.key })).body.jobs).toEqual([]);
    const early = await uploadedNot(owner.key);
    const start = await s.t.call("POST", `/preview/jobs/${early}/start`, { key: owner.key });
    expect(start.status).toBe(400);
    expect(start.body.code).toBe("not_uploaded");
    const cancelled = await s.t.call("POST", `/preview/jobs/${early}/cancel`, { key: owner.key });
    expect(cancelled.body.job.status).toBe("cancelled");
    expect((await s.t.call("GET", `/preview/jobs/${early}`, { key: "kin_nonsense" })).status).toBe(
      401,
    );
  });

  it("counts a wallet's previews by the hour: past PREVIEW_PER_HOUR a 429 with a detail", async () => {
    const owner = await s.t.newWallet(100);
    for (let i = 0; i < 4; i++) await uploadedNot(owner.key);
    const over = await s.t.call("POST", "/preview/jobs", {
      key: owner.key,
      body: { size: 1000, content_type: "video/mp4" },
    });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe("rate_limited");
    expect(over.body.detail).toMatch(/^Free previews: at most 4 an hour for this wallet/);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    // An agent key of the same wallet shares the wallet's count; another wallet has its own.
    const agent = await s.t.newAgentKey(owner.key, 100);
    const body = { size: 1000, content_type: "video/mp4" };
    expect((await s.t.call("POST", "/preview/jobs", { key: agent.key, body })).status).toBe(429);
    const other = await s.t.newWallet(100);
    expect((await s.t.call("POST", "/preview/jobs", { key: other.key, body })).status).toBe(200);
  });

  it("refuses an uploaded video longer than a restore takes, as a restore would", async () => {
    const owner = await s.t.newWallet(100);
    const created = await uploaded(owner.key, long);
    await s.t.call("POST", `/preview/jobs/${created.job.id}/start`, { key: owner.key });
    const job = await until(owner.key, created.job.id, ["done", "failed", "refused"]);
    expect(job.status).toBe("refused");
    expect(job.error_code).toBe("too_long");
    expect(job.error).toMatch(/up to 60 s/);
    expect(job.preview).toBeNull();
  }, 60_000);

  it("refuses a minute packed into 5 s at 300 frames a second: seconds cap footage too", async () => {
    const owner = await s.t.newWallet(100);
    const created = await uploaded(owner.key, packed);
    const before = (await s.t.call("GET", "/wallet", { key: owner.key })).body.balance_cents;
    await s.t.call("POST", `/preview/jobs/${created.job.id}/start`, { key: owner.key });
    const job = await until(owner.key, created.job.id, ["done", "failed", "refused"]);
    expect({ status: job.status, code: job.error_code }).toEqual({
      status: "failed",
      code: "unsupported",
    });
    expect(job.error).toMatch(/runs at 300 frames a second: a restore takes at most 60\. Convert/);
    expect(job.preview).toBeNull();
    // Free, and nothing charged on the way to the refusal.
    const after = (await s.t.call("GET", "/wallet", { key: owner.key })).body.balance_cents;
    expect(after).toBe(before);
  }, 60_000);
});

/** A preview made for an upload that never comes: its id. */
async function uploadedNot(key: string): Promise<string> {
  const made = await s.t.call("POST", "/preview/jobs", {
    key,
    body: { size: 1000, content_type: "video/mp4" },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  return made.body.job.id;
}

describe("a preview over MCP", () => {
  it("lists preview_restore, reads a done preview, fetches a video_url", async () => {
    const client = await connect(s.url, done.agentKey);
    const tools = (await client.listTools()).tools;
    const tool = tools.find((t: { name: string }) => t.name === "preview_restore");
    expect(Object.keys(tool?.inputSchema.properties ?? {}).sort()).toEqual(
      ["fade", "job_id", "video_url", "wait_seconds"].sort(),
    );
    const read = await call(client, "preview_restore", { job_id: done.id });
    expect(read.isError, JSON.stringify(read)).toBeFalsy();
    const p = read.structuredContent.job.preview;
    expect(p.qualities.map((q: { label: string }) => q.label)).toEqual([
      "Standard",
      "Enhanced",
      "Studio Max",
    ]);
    expect(p.qualities[0].words).toContain("deinterlaced, top field first");
    // Another key of the same wallet does not find it.
    const other = await connect(s.url, (await s.t.newAgentKey(done.key, 100)).key);
    expect(refusal(await call(other, "preview_restore", { job_id: done.id })).code).toBe(
      "not_found",
    );
    await other.close();
    // A video_url is fetched by the worker: this one is 62 s, longer than this server restores.
    const made = await call(client, "preview_restore", { video_url: hostUrl, fade: "not_faded" });
    expect(made.isError, JSON.stringify(made)).toBeFalsy();
    expect(made.structuredContent.job).toMatchObject({
      status: "queued",
      price_cents: 0,
      fade: "not_faded",
    });
    expect(made.structuredContent.next).toContain("preview_restore");
    const id = made.structuredContent.job.id;
    let job = made.structuredContent.job;
    for (
      const deadline = Date.now() + 60_000;
      !["done", "failed", "refused"].includes(job.status);
    ) {
      job = (await call(client, "preview_restore", { job_id: id, wait_seconds: 20 }))
        .structuredContent.job;
      if (Date.now() > deadline) throw new Error(`still ${job.status}`);
    }
    expect(job).toMatchObject({ status: "refused", error_code: "too_long" });
    const bad = refusal(await call(client, "preview_restore", {}));
    expect(bad.detail).toMatch(/^video_url: is required/);
    await client.close();
  }, 90_000);
});

describe("retention", () => {
  it("deletes a done preview's files after the retention window, like a restore's", async () => {
    const deps = jobEngineDeps(s.t.platform);
    const key = previewFileKey(done.id, "enhanced-pair");
    expect(await s.t.platform.storage.head(key)).not.toBeNull();
    s.t.clock.set(new Date(Date.now() + (deps.retentionHours + 1) * 3600_000));
    await sweepJobs(previewJobs, { ...deps, clock: () => s.t.clock.now() });
    expect(await s.t.platform.storage.head(key)).toBeNull();
    const job = (await s.t.call("GET", `/preview/jobs/${done.id}`, { key: done.key })).body.job;
    expect(job.status).toBe("expired");
    expect(job.preview).toBeNull();
  });
});

const cookieOf = (res: Response, name: string) =>
  (res.headers.getSetCookie?.() ?? [])
    .map((c) => c.split(";")[0] ?? "")
    .find((c) => c.startsWith(`${name}=`));

/** Signs in to the console with a wallet key; a function that loads a console page's HTML. */
async function signedInPages(walletKey: string): Promise<(path: string) => Promise<string>> {
  const form = await s.t.app.request("/console");
  const pre = cookieOf(form, "kinora_pre");
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!pre || !csrf) throw new Error("the sign-in page gave no CSRF token or cookie");
  const signedIn = await s.t.app.request("/console/signin", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: pre },
    body: new URLSearchParams({ csrf, wallet_key: walletKey }).toString(),
  });
  const session = cookieOf(signedIn, "kinora_session");
  if (!session) throw new Error(`sign-in answered ${signedIn.status}`);
  return async (path) => (await s.t.app.request(path, { headers: { cookie: session } })).text();
}

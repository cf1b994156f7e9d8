/**
 * ALLOW_LOOPBACK_URLS=1, the development setting, as `kinora serve` composes it (no test seam
 * in the features): a restore from a `video_url` served on 127.0.0.1 runs to `done`, an
 * `image_url` and a webhook receiver on localhost are taken — and the same requests on a
 * server without the setting are refused at once, nothing charged. With it on, private and
 * metadata addresses stay refused. The setting itself is refused with NODE_ENV=production.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { startServer } from "../../src/server.js";
import { makeImage, stubClassifier } from "../clips/helpers.js";
import { call, connect, type Json, refusal } from "../mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { makeVideo } from "./helpers.js";

const dir = mkdtempSync(path.join(tmpdir(), "kinora-loopback-"));
let video: Buffer;
let image: Buffer;
let host: ReturnType<typeof createServer>;
let port: number;
const hits = new Map<string, number>();

function serveFiles(req: IncomingMessage, res: ServerResponse) {
  const p = new URL(req.url ?? "/", "http://x").pathname;
  hits.set(p, (hits.get(p) ?? 0) + 1);
  if (p.startsWith("/videos/")) {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": video.length });
    return res.end(video);
  }
  if (p.startsWith("/images/")) {
    res.writeHead(200, { "content-type": "image/png", "content-length": image.length });
    return res.end(image);
  }
  res.writeHead(204);
  res.end();
}

const features = () => [
  restoreFeature(),
  clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
  mcpFeature(),
];

let allowed: ServedApp;
let strict: ServedApp;
beforeAll(async () => {
  video = readFileSync((await makeVideo(dir, 1, "one.mp4")).path);
  image = await makeImage(640, 480);
  host = createServer(serveFiles);
  await new Promise<void>((r) => host.listen(0, "127.0.0.1", r));
  port = (host.address() as AddressInfo).port;
  allowed = await serveTestApp({
    env: { ALLOW_LOOPBACK_URLS: "1" },
    features: features(),
    workers: 1,
  });
  strict = await serveTestApp({ features: features() });
});
afterAll(async () => {
  await Promise.all([allowed?.close(), strict?.close()]);
  host?.closeAllConnections();
  await new Promise((r) => host?.close(r));
});

async function rest(s: ServedApp, method: string, p: string, key?: string, body?: unknown) {
  const res = await fetch(`${s.url}${p}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function agentKey(s: ServedApp) {
  const owner = await s.t.newWallet(5000);
  const made = await rest(s, "POST", "/wallet/keys", owner.key, {
    limit_cents: 3000,
    ask_before_spending: false,
  });
  return { owner: owner.key, key: made.body.key as string };
}

const balance = async (s: ServedApp, key: string) =>
  (await rest(s, "GET", "/wallet", key)).body.wallet.balance_cents as number;

describe("ALLOW_LOOPBACK_URLS=1 (development)", () => {
  it("restores from a video_url served on 127.0.0.1, to done", async () => {
    const { owner, key } = await agentKey(allowed);
    const created = await rest(allowed, "POST", "/cloud/jobs", key, {
      duration_sec: 1,
      quality: "faithful",
      video_url: `http://127.0.0.1:${port}/videos/home.mp4`,
      webhook_url: `http://localhost:${port}/hook`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.job.id as string;
    let job: Json = created.body.job;
    const deadline = Date.now() + 90_000;
    while (!["done", "failed", "refunded"].includes(job.status) && Date.now() < deadline) {
      job = (await rest(allowed, "GET", `/cloud/jobs/${id}?wait=20`)).body.job;
    }
    expect(job).toMatchObject({ status: "done", error: null });
    expect(hits.get("/videos/home.mp4")).toBe(1);
    expect(await balance(allowed, owner)).toBe(5000 - 299);
  });

  it("takes an image_url on localhost over MCP, and still refuses private and metadata addresses", async () => {
    const { key } = await agentKey(allowed);
    const client = await connect(allowed.url, key);
    const made = await call(client, "make_clip", {
      prompt: "waves at dusk",
      image_url: `http://localhost:${port}/images/a.png`,
    });
    expect(made.isError, JSON.stringify(made)).toBeFalsy();
    expect(made.structuredContent.job.status).toBe("queued");
    expect(hits.get("/images/a.png")).toBe(1);
    for (const url of ["http://10.0.0.7/v.mp4", "http://169.254.169.254/latest/meta-data"]) {
      const r = await rest(allowed, "POST", "/cloud/jobs", key, {
        duration_sec: 1,
        video_url: url,
      });
      expect(r.status, url).toBe(400);
      expect(r.body.code).toBe("video_fetch_failed");
    }
    await client.close();
  });
});

describe("without ALLOW_LOOPBACK_URLS", () => {
  it("refuses the same video_url, image_url and webhook at once, naming the setting, nothing charged", async () => {
    const { owner, key } = await agentKey(strict);
    const fetchedBefore = hits.get("/videos/home.mp4") ?? 0;
    const byUrl = await rest(strict, "POST", "/cloud/jobs", key, {
      duration_sec: 1,
      video_url: `http://127.0.0.1:${port}/videos/home.mp4`,
    });
    expect(byUrl.status).toBe(400);
    expect(byUrl.body.code).toBe("video_fetch_failed");
    expect(byUrl.body.detail).toMatch(/loopback address \(127\.0\.0\.1\).*ALLOW_LOOPBACK_URLS=1/);
    const hook = await rest(strict, "POST", "/cloud/jobs", key, {
      duration_sec: 1,
      filename: "a.mp4",
      content_type: "video/mp4",
      size: 1000,
      webhook_url: `http://localhost:${port}/hook`,
    });
    expect(hook.status).toBe(400);
    expect(hook.body.detail).toMatch(/webhook_url/);
    const client = await connect(strict.url, key);
    const made = refusal(
      await call(client, "make_clip", {
        prompt: "waves at dusk",
        image_url: `http://localhost:${port}/images/a.png`,
      }),
    );
    expect(made.code).toBe("image_fetch_failed");
    expect(made.detail).toMatch(/localhost.*ALLOW_LOOPBACK_URLS=1/);
    await client.close();
    expect(hits.get("/videos/home.mp4") ?? 0).toBe(fetchedBefore);
    expect(await balance(strict, owner)).toBe(5000);
  });
});

describe("the setting", () => {
  it("is refused at start with NODE_ENV=production, saying why", () => {
    const start = () => loadConfig({ ALLOW_LOOPBACK_URLS: "1", NODE_ENV: "production" });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/ALLOW_LOOPBACK_URLS: is refused when NODE_ENV=production/);
    expect(loadConfig({ ALLOW_LOOPBACK_URLS: "0", NODE_ENV: "production" }).allowLoopbackUrls).toBe(
      false,
    );
    expect(() => loadConfig({ ALLOW_LOOPBACK_URLS: "yes" })).toThrow(/must be 1 or 0/);
  });

  it("is said in the start log (warn) of a server that has it on", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const config = loadConfig({
        DATA_DIR: path.join(dir, "served"),
        PORT: "0",
        LOG_LEVEL: "warn",
        WORKERS: "0",
        ALLOW_LOOPBACK_URLS: "1",
      });
      const server = await startServer(config);
      await server.close();
    } finally {
      spy.mockRestore();
    }
    const said = lines.map((l) => JSON.parse(l)).find((r) => /ALLOW_LOOPBACK_URLS/.test(r.msg));
    expect(said).toMatchObject({ level: "warn" });
    expect(said.msg).toMatch(/is on \(development only\).*127\.0\.0\.0\/8, ::1, localhost/);
  });
});

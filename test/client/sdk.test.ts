/**
 * `@kinora/client` against a real served kinora (HTTP on 127.0.0.1, a worker loop, an engine
 * that restores nothing in ~1 s with progress reports): a wallet created and credited through the
 * SDK, a quote, a restore created, uploaded with progress, started and waited for until done;
 * a typed error for a bad field; a spending call retried after its answer was lost on the network,
 * charged once; Retry-After honoured; a non-idempotent call not repeated; an upload retried;
 * aborts and timeouts that end waits and calls at once.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createKinora,
  type Kinora,
  KinoraError,
  KinoraNetworkError,
} from "../../packages/client/src/index.js";
import { ADMIN_TOKEN } from "../app.js";
import { makeVideo } from "../restore/helpers.js";
import { tempDir } from "../restore/media.js";
import { startQuickWorker, steppedRestoreFeature } from "../restore/stepped.js";
import { type ServedApp, serveTestApp } from "../served.js";

const quickRestore = steppedRestoreFeature(4, 150);

let s: ServedApp;
let stop: () => Promise<void>;
let video: { path: string; sizeBytes: number };
let cleanup: () => Promise<void>;
/** A client holding a credited wallet's key. */
let kinora: Kinora;
let walletId: string;
let walletKey: string;

beforeAll(async () => {
  s = await serveTestApp({ features: [quickRestore] });
  stop = await startQuickWorker(s.t, "sdk-w0");
  const tmp = await tempDir();
  cleanup = tmp.cleanup;
  video = await makeVideo(tmp.dir, 2);

  // A wallet made through the SDK, credited by the operator through the SDK.
  const anonymous = createKinora({ baseUrl: s.url });
  const made = await anonymous.createWallet();
  walletId = made.wallet.wallet_id;
  const admin = createKinora({ baseUrl: s.url, apiKey: ADMIN_TOKEN });
  const credited = await admin.adjustWalletBalance({
    id: walletId,
    amount_cents: 10_000,
    reason: "sdk test",
  });
  expect(credited.balance_cents).toBe(10_000);
  walletKey = made.key;
  kinora = createKinora({ baseUrl: s.url, apiKey: walletKey, retryBaseMs: 50 });
});
afterAll(async () => {
  await stop?.();
  await s?.close();
  await cleanup?.();
});

const restoreInput = (extra: Record<string, unknown> = {}) => ({
  duration_sec: 2,
  quality: "faithful" as const,
  filename: "home-movie.mp4",
  content_type: "video/mp4",
  size: video.sizeBytes,
  ...extra,
});

/** A fetch that records what it sends and can be told to misbehave per request. */
function recordingFetch(
  misbehave: (url: string, init: RequestInit, n: number) => Promise<Response | "pass"> | "pass",
) {
  const sent: { url: string; method: string; headers: Headers; at: number }[] = [];
  const fetchFn: typeof fetch = async (input, init = {}) => {
    const url = String(input);
    sent.push({
      url,
      method: init.method ?? "GET",
      headers: new Headers(init.headers),
      at: Date.now(),
    });
    const verdict = await misbehave(url, init, sent.length);
    return verdict === "pass" ? fetch(input, init) : verdict;
  };
  return { fetchFn, sent };
}

describe("a whole restore through the SDK", () => {
  it("quotes, creates, uploads with progress, starts and waits until done", async () => {
    const quote = await kinora.quoteRestore({ duration_sec: 2, quality: "faithful" });
    const before = (await kinora.getWallet()).wallet.balance_cents;

    const created = await kinora.createRestore(restoreInput());
    expect(created.job.status).toBe("awaiting_upload");
    expect(created.job.amount_cents).toBe(quote.amount_cents);

    const progress: number[] = [];
    await kinora.upload(created, video.path, {
      onProgress: (sent, total) => {
        expect(total).toBe(video.sizeBytes);
        progress.push(sent);
      },
    });
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(video.sizeBytes);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);

    const started = await kinora.startRestore({ id: created.job.id });
    expect(["queued", "processing"]).toContain(started.job.status);

    const seen: string[] = [];
    const done = await kinora.waitForRestore(created.job.id, {
      onUpdate: (job) => seen.push(`${job.status}:${job.progress ?? "-"}`),
      timeoutMs: 30_000,
    });
    expect(done.status).toBe("done");
    expect(done.download_url).toMatch(/^http/);
    // Held reads with until=progress end on progress reports, so the caller saw some.
    expect(seen.some((x) => x.startsWith("processing:0."))).toBe(true);
    expect((await kinora.getWallet()).wallet.balance_cents).toBe(before - quote.amount_cents);
  });

  it("uploads a Blob the same way", async () => {
    const created = await kinora.createRestore(restoreInput());
    const blob = new Blob([await readFile(video.path)], { type: "video/mp4" });
    let last = 0;
    await kinora.upload(created, blob, { onProgress: (sent) => (last = sent) });
    expect(last).toBe(video.sizeBytes);
    const started = await kinora.startRestore({ id: created.job.id });
    expect(["queued", "processing"]).toContain(started.job.status);
    await kinora.waitForRestore(created.job.id, { until: ["done", "failed"], timeoutMs: 30_000 });
  });
});

describe("typed errors", () => {
  it("a bad field is a KinoraError with code, detail and request_id", async () => {
    const err = await kinora
      .createRestore(restoreInput({ duration_sec: -1 }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KinoraError);
    const e = err as KinoraError;
    expect(e.status).toBe(400);
    expect(e.code).toBe("invalid_field");
    expect(e.is("invalid_field")).toBe(true);
    expect(e.detail).toContain("duration_sec");
    expect(e.request_id).toMatch(/^req_/);
    expect(e.operation).toBe("createRestore");
  });

  it("a missing key and an unknown job carry their own codes", async () => {
    const anonymous = createKinora({ baseUrl: s.url });
    await expect(anonymous.getWallet()).rejects.toMatchObject({
      status: 401,
      code: "unauthorized",
    });
    await expect(kinora.getRestore({ id: "rj_nope" })).rejects.toMatchObject({
      status: 404,
      code: "not_found",
    });
  });
});

describe("retries", () => {
  it("a spending call whose answer is lost is retried with the same Idempotency-Key and charged once", async () => {
    let dropped = false;
    const replayed: (string | null)[] = [];
    const { fetchFn, sent } = recordingFetch(async (url, init) => {
      if (!dropped && init.method === "POST" && new URL(url).pathname === "/cloud/jobs") {
        dropped = true;
        // The request reaches the server and runs; only its answer is lost.
        const res = await fetch(url, init);
        await res.arrayBuffer();
        throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
      }
      if (init.method === "POST" && new URL(url).pathname === "/cloud/jobs") {
        const res = await fetch(url, init);
        replayed.push(res.headers.get("idempotent-replayed"));
        return res;
      }
      return "pass" as const;
    });
    const flaky = createKinora({
      baseUrl: s.url,
      apiKey: walletKey,
      fetch: fetchFn,
      retryBaseMs: 20,
    });
    const before = (await kinora.getWallet()).wallet.balance_cents;
    const jobsBefore = (await kinora.listRestores({ limit: 100 })).jobs.length;

    const created = await flaky.createRestore(restoreInput());

    const posts = sent.filter((r) => r.method === "POST" && r.url.endsWith("/cloud/jobs"));
    expect(posts).toHaveLength(2);
    const keys = posts.map((r) => r.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(replayed).toEqual(["true"]);
    expect((await kinora.listRestores({ limit: 100 })).jobs.length).toBe(jobsBefore + 1);
    expect((await kinora.getWallet()).wallet.balance_cents).toBe(before - created.job.amount_cents);
  });

  it("honours Retry-After on a 429 (refused before it ran, so even a plain POST) and then succeeds", async () => {
    let refused = false;
    const { fetchFn, sent } = recordingFetch(() => {
      if (refused) return "pass";
      refused = true;
      return Promise.resolve(
        new Response(
          JSON.stringify({ code: "rate_limited", detail: "slow down", request_id: "req_x" }),
          { status: 429, headers: { "retry-after": "1", "content-type": "application/json" } },
        ),
      );
    });
    const client = createKinora({ baseUrl: s.url, fetch: fetchFn, retryBaseMs: 1 });
    const quote = await client.quoteRestore({ duration_sec: 60 });
    expect(quote.amount_cents).toBeGreaterThan(0);
    expect(sent).toHaveLength(2);
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("does not repeat a call without an Idempotency-Key after a network error", async () => {
    const { fetchFn, sent } = recordingFetch(() => {
      throw new TypeError("fetch failed");
    });
    const client = createKinora({ baseUrl: s.url, fetch: fetchFn, retryBaseMs: 1 });
    const err = await client.quoteRestore({ duration_sec: 60 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KinoraNetworkError);
    expect(sent).toHaveLength(1);
    // A spending call without a key: the server would not keep its Idempotency-Key, so no retry.
    await expect(
      client.createRestore(restoreInput({ email: "owner@example.com" })),
    ).rejects.toBeInstanceOf(KinoraNetworkError);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.headers.get("idempotency-key")).toBeTruthy();
    // A read is repeated (1 + 3 retries by default).
    await expect(client.getRestorePrices()).rejects.toBeInstanceOf(KinoraNetworkError);
    expect(sent).toHaveLength(6);
  });

  it("retries an upload whose connection broke, re-sending the whole file", async () => {
    let broke = false;
    const { fetchFn } = recordingFetch((_url, init) => {
      if (init.method === "PUT" && !broke) {
        broke = true;
        throw new TypeError("fetch failed", { cause: { code: "EPIPE" } });
      }
      return "pass";
    });
    const client = createKinora({ baseUrl: s.url, fetch: fetchFn, retryBaseMs: 10 });
    const created = await kinora.createRestore(restoreInput());
    const retries: string[] = [];
    await client.upload(created, video.path, { onRetry: (_n, _ms, why) => retries.push(why) });
    // The reason names what broke (the socket's error code), not just "fetch failed".
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatch(/^(EPIPE|ECONNRESET|UND_ERR_SOCKET)/);
    const started = await kinora.startRestore({ id: created.job.id });
    expect(["queued", "processing"]).toContain(started.job.status);
  });
});

describe("AbortSignal", () => {
  it("ends a held wait at once, and a timeout ends it with TimeoutError", async () => {
    const created = await kinora.createRestore(restoreInput());
    const controller = new AbortController();
    const t0 = Date.now();
    setTimeout(() => controller.abort(), 300);
    const err = await kinora
      .waitForRestore(created.job.id, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(Date.now() - t0).toBeLessThan(3000);

    const timedOut = await kinora
      .waitForRestore(created.job.id, { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect((timedOut as Error).name).toBe("TimeoutError");
    await kinora.cancelRestore({ id: created.job.id });
  });

  it("an aborted signal stops a call before it is sent, and stops its retry waits", async () => {
    const { fetchFn, sent } = recordingFetch(() =>
      Promise.resolve(new Response("", { status: 503, headers: { "retry-after": "30" } })),
    );
    const client = createKinora({ baseUrl: s.url, fetch: fetchFn });
    await expect(
      client.getRestorePrices(undefined, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(sent).toHaveLength(0);
    const t0 = Date.now();
    await expect(
      client.getRestorePrices(undefined, { signal: AbortSignal.timeout(200) }),
    ).rejects.toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(sent).toHaveLength(1);
  });
});

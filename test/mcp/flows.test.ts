/**
 * Whole flows through MCP, as an assistant runs them: a restore (create → PUT → start → poll
 * with wait_seconds → download) and a clip (make → PUT → start → poll → video), with the real
 * engines on in-process workers.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { makeImage, stubClassifier } from "../clips/helpers.js";
import { makeVideo } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { call, connect, type Json } from "./helpers.js";

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({
    features: [
      restoreFeature(),
      clipsFeature({ classifier: stubClassifier().classifier }),
      paymentsFeature(),
      mcpFeature(),
    ],
    workers: 1,
  });
});
afterAll(async () => {
  await s.close();
});

async function agentClient(balance = 5000, limit = 2000) {
  const owner = await s.t.newWallet(balance);
  const key = (
    await s.t.call("POST", "/wallet/keys", {
      key: owner.key,
      // The owner agreed in advance (test/mcp/agreement.test.ts covers a key that must ask).
      body: { limit_cents: limit, ask_before_spending: false },
    })
  ).body.key as string;
  return { owner, client: await connect(s.url, key) };
}

async function follow(client: Json, tool: string, id: string, final: string[]) {
  const deadline = Date.now() + 90_000;
  let polls = 0;
  for (;;) {
    const res = await call(client, tool, { job_id: id, wait_seconds: 10 });
    polls++;
    expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
    if (final.includes(res.structuredContent.job.status))
      return { job: res.structuredContent.job, polls };
    if (Date.now() > deadline) throw new Error(`${id} still ${res.structuredContent.job.status}`);
  }
}

describe("through MCP", () => {
  it("restores a video: quote, create, PUT, start, poll with wait_seconds, download", async () => {
    const video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-mcp-")), 2);
    const { owner, client } = await agentClient();
    const quote = await call(client, "quote_restore", { duration_sec: 2, quality: "faithful" });
    expect(quote.structuredContent).toMatchObject({ amount_cents: 299, display: "$2.99" });
    const created = await call(client, "create_restore", {
      duration_sec: 2,
      quality: "faithful",
      filename: "v.mp4",
      content_type: "video/mp4",
      size: video.sizeBytes,
    });
    const c = created.structuredContent;
    expect(c).toMatchObject({ paid_from_balance: true, display_price: "$2.99" });
    expect(c.wallet.balance_cents).toBe(5000 - 299);
    const put = await fetch(c.upload_url, {
      method: "PUT",
      headers: c.upload_headers,
      body: readFileSync(video.path),
    });
    expect(put.status).toBe(200);
    const started = await call(client, "start_restore", { job_id: c.job.id });
    expect(started.structuredContent.job.status).toBe("processing");
    const { job, polls } = await follow(client, "get_restore", c.job.id, [
      "done",
      "failed",
      "refunded",
    ]);
    expect(job.status).toBe("done");
    expect(polls).toBeLessThan(15);
    const download = await fetch(job.download_url);
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect((await s.t.call("GET", "/wallet", { key: owner.key })).body.wallet.balance_cents).toBe(
      4701,
    );
    await client.close();
  });

  it("makes a clip: make_clip, PUT the image, start_clip, poll, play video_url", async () => {
    const image = await makeImage(320, 240);
    const { client } = await agentClient();
    const made = await call(client, "make_clip", {
      prompt: "slow push in, waves rolling",
      content_type: "image/jpeg",
      image_bytes: image.length,
    });
    const m = made.structuredContent;
    expect(m.job.status).toBe("awaiting_upload");
    expect(m.wallet.agent_key.spent_cents).toBe(59);
    const put = await fetch(m.upload_url, {
      method: "PUT",
      headers: m.upload_headers,
      body: new Uint8Array(image),
    });
    expect(put.status).toBe(200);
    expect(
      (await call(client, "start_clip", { job_id: m.job.id })).structuredContent.job.status,
    ).toBe("queued");
    const { job } = await follow(client, "get_clip", m.job.id, ["done", "failed", "refused"]);
    expect(job.status).toBe("done");
    const video = await fetch(job.video_url);
    expect(video.status).toBe(200);
    const list = await call(client, "list_clips");
    expect(list.structuredContent.clips.map((x: Json) => x.id)).toContain(m.job.id);
    await client.close();
  });

  it("cancels a job whose file never arrived and refunds balance and allowance at once", async () => {
    const { owner, client } = await agentClient(1000, 1000);
    const made = await call(client, "make_clip", { prompt: "rain", content_type: "image/png" });
    const cancelled = await call(client, "cancel_job", { job_id: made.structuredContent.job.id });
    expect(cancelled.structuredContent.job.status).toBe("cancelled");
    expect(cancelled.structuredContent.wallet).toMatchObject({
      balance_cents: 1000,
      agent_key: { spent_cents: 0 },
    });
    const again = await call(client, "cancel_job", { job_id: made.structuredContent.job.id });
    expect(again.structuredContent.job.status).toBe("cancelled");
    expect((await s.t.call("GET", "/wallet", { key: owner.key })).body.wallet.balance_cents).toBe(
      1000,
    );
    await client.close();
  });

  it("hands a checkout-paid restore's checkout link to the owner at start_restore", async () => {
    const video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-mcp-")), 1);
    const { client } = await agentClient();
    const created = await call(client, "create_restore", {
      duration_sec: 1,
      filename: "v.mp4",
      content_type: "video/mp4",
      size: video.sizeBytes,
      pay_with: "checkout",
      email: "owner@example.com",
    });
    const c = created.structuredContent;
    expect(c.job.status).toBe("pending_payment");
    await fetch(c.upload_url, {
      method: "PUT",
      headers: c.upload_headers,
      body: readFileSync(video.path),
    });
    const started = await call(client, "start_restore", { job_id: c.job.id });
    expect(started.structuredContent.checkout_url).toMatch(/\/checkout\//);
    expect(started.structuredContent.job.status).toBe("pending_payment");
    const link = await call(client, "create_top_up_link", { amount_cents: 1000 });
    expect(link.structuredContent).toMatchObject({ amount_cents: 1000, display: "$10.00" });
    await client.close();
  });
});

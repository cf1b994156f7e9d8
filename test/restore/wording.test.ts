/**
 * Answers speak the caller's language (issue 18 item 4): `next` and refusal details name MCP
 * tools over MCP and REST calls over REST — both worded from the contracts' Refer, never from a
 * second copy of the text. Real HTTP and the official MCP SDK client after tools/list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeImage } from "../clips/helpers.js";
import { call, connect, type Json, type McpClient, refusal } from "../mcp/helpers.js";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({
    features: apiOnlyFeatures(),
  });
});
afterAll(async () => {
  await s?.close();
});

async function rest(
  method: string,
  p: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${s.url}${p}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A wallet with `balance` and an agent key that need not ask, connected over MCP. */
async function setup(balance: number): Promise<{ key: string; client: McpClient }> {
  const owner = await s.t.newWallet(balance);
  const made = await rest("POST", "/wallet/keys", {
    key: owner.key,
    body: { limit_cents: 5000, ask_before_spending: false },
  });
  const key = made.body.key as string;
  return { key, client: await connect(s.url, key) };
}

const REST_CALL = /\b(GET|POST|PUT) \/(cloud|motion|wallet)/;
const TOOL = /\bthe [a-z_]+ tool\b/;
const RESTORE = {
  duration_sec: 5,
  quality: "faithful",
  filename: "v.mp4",
  content_type: "video/mp4",
  size: 1000,
};

describe("next", () => {
  it("names the start and follow calls of the caller's surface", async () => {
    const { key, client } = await setup(5000);
    const mcp = (await call(client, "create_restore", RESTORE)).structuredContent;
    expect(mcp.next).toContain("the start_restore tool");
    expect(mcp.next).toContain("the get_restore tool");
    expect(mcp.next).not.toMatch(REST_CALL);
    const viaRest = (await rest("POST", "/cloud/jobs", { key, body: RESTORE })).body;
    expect(viaRest.next).toContain(`POST /cloud/jobs/${viaRest.job.id}/start`);
    expect(viaRest.next).toContain(`GET /cloud/jobs/${viaRest.job.id}`);
    expect(viaRest.next).not.toMatch(TOOL);
    await client.close();
  });
});

describe("refusals", () => {
  it("needs_topup names the top-up tools over MCP and the top-up calls over REST", async () => {
    const { key, client } = await setup(100);
    const mcp = refusal(await call(client, "create_restore", RESTORE));
    expect(mcp.code).toBe("needs_topup");
    expect(mcp.detail).toContain("the create_top_up_link tool");
    expect(mcp.detail).toContain("the top_up_with_usdc tool");
    expect(mcp.detail).not.toMatch(REST_CALL);
    const viaRest = await rest("POST", "/cloud/jobs", { key, body: RESTORE });
    expect(viaRest.status).toBe(402);
    expect(viaRest.body.detail).toContain("POST /wallet/topup");
    expect(viaRest.body.detail).toContain("POST /wallet/topup/crypto");
    expect(viaRest.body.detail).not.toMatch(TOOL);
    await client.close();
  });

  it("a reused idempotency key is named as the caller sent it", async () => {
    const { key, client } = await setup(5000);
    await call(client, "create_restore", { ...RESTORE, idempotency_key: "k-1" });
    const mcp = refusal(
      await call(client, "create_restore", { ...RESTORE, size: 2000, idempotency_key: "k-1" }),
    );
    expect(mcp.code).toBe("idempotency_key_reused");
    expect(mcp.detail).toMatch(/^This idempotency_key was already used/);
    const headers = { "idempotency-key": "k-2" };
    await rest("POST", "/cloud/jobs", { key, body: RESTORE, headers });
    const viaRest = await rest("POST", "/cloud/jobs", {
      key,
      body: { ...RESTORE, size: 2000 },
      headers,
    });
    expect(viaRest.body.code).toBe("idempotency_key_reused");
    expect(viaRest.body.detail).toMatch(/^This Idempotency-Key was already used/);
    await client.close();
  });

  it("a clip whose image arrived: cancel names start_clip over MCP, its POST over REST, once", async () => {
    const { key, client } = await setup(5000);
    const image = await makeImage(320, 240);
    const made = (
      await call(client, "make_clip", {
        prompt: "rain",
        content_type: "image/jpeg",
        image_bytes: image.length,
      })
    ).structuredContent;
    const put = await fetch(made.upload_url, {
      method: "PUT",
      headers: made.upload_headers,
      body: new Uint8Array(image),
    });
    expect(put.status).toBe(200);
    const mcp = refusal(await call(client, "cancel_job", { job_id: made.job.id }));
    expect(mcp.code).toBe("already_uploaded");
    expect(mcp.detail).toBe(
      "The image has already arrived, so the clip can no longer be cancelled. Start it with the start_clip tool.",
    );
    const viaRest = await rest("POST", `/motion/jobs/${made.job.id}/cancel`, { key });
    expect(viaRest.body.detail).toBe(
      `The image has already arrived, so the clip can no longer be cancelled. Start it with POST /motion/jobs/${made.job.id}/start.`,
    );
    await client.close();
  });
});

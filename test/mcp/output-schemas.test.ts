/**
 * Every tool's success answer holds to the outputSchema tools/list gave, in every official
 * client — the v2 SDK on 2026-07-28 and on the 2025 era, and the 1.32 SDK: each lists the tools
 * first and then validates every result's structuredContent against the tool's schema (a
 * mismatch throws -32602 and the answer is lost). Every tool is called to a success here; the
 * schemas name the REST answer's fields with their types.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { makeImage, stubClassifier } from "../clips/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { CLIENTS, call, connect, type Json, type McpClient } from "./helpers.js";

let s: ServedApp;
let image: Buffer;
beforeAll(async () => {
  image = await makeImage(320, 240);
  s = await serveTestApp({
    features: [
      restoreFeature({ noExecutor: true }),
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      paymentsFeature(),
      mcpFeature(),
    ],
  });
});
afterAll(async () => {
  await s.close();
});

async function agentKey() {
  const owner = await s.t.newWallet(20_000);
  const res = await s.t.call("POST", "/wallet/keys", {
    key: owner.key,
    body: { limit_cents: 10_000, ask_before_spending: false },
  });
  return res.body.key as string;
}

/** Calls a tool and expects a success the client accepted (it validated structuredContent). */
async function ok(client: McpClient, name: string, args: Record<string, unknown> = {}) {
  const res: Json = await call(client, name, args);
  expect(res.isError, `${client.kind} ${name}: ${JSON.stringify(res.content)}`).toBeFalsy();
  expect(res.structuredContent, `${client.kind} ${name}`).toBeTypeOf("object");
  return res.structuredContent as Json;
}

async function put(url: string, headers: Record<string, string>, body: Uint8Array) {
  const res = await fetch(url, { method: "PUT", headers, body: Buffer.from(body) });
  expect(res.status).toBeLessThan(300);
}

describe("every tool's answer holds to its outputSchema", () => {
  for (const kind of CLIENTS) {
    it(`in ${kind}`, async () => {
      const client = await connect(s.url, await agentKey(), { client: kind });
      const { tools } = await client.listTools();
      for (const tool of tools) {
        const props = Object.keys(tool.outputSchema?.properties ?? {});
        expect(props.length, `${tool.name} names its answer's fields`).toBeGreaterThan(0);
      }
      const called = new Set<string>();
      const tool = (name: string, args?: Record<string, unknown>) => {
        called.add(name);
        return ok(client, name, args);
      };
      await tool("get_prices");
      await tool("get_balance");
      await tool("quote_restore", { duration_sec: 60 });
      const video = new Uint8Array(2048);
      const r = await tool("create_restore", {
        duration_sec: 60,
        filename: "a.mp4",
        content_type: "video/mp4",
        size: video.length,
      });
      await put(r.upload_url, r.upload_headers, video);
      await tool("start_restore", { job_id: r.job.id });
      await tool("get_restore", { job_id: r.job.id });
      await tool("list_restores");
      const c = await tool("make_clip", { prompt: "waves at dusk", content_type: "image/png" });
      await put(c.upload_url, { "content-type": "image/png" }, image);
      await tool("start_clip", { job_id: c.job.id });
      await tool("get_clip", { job_id: c.job.id });
      await tool("list_clips");
      const spare = await ok(client, "make_clip", { prompt: "rain", content_type: "image/png" });
      await tool("cancel_job", { job_id: spare.job.id });
      const spareRestore = await ok(client, "create_restore", {
        duration_sec: 30,
        filename: "b.mp4",
        content_type: "video/mp4",
        size: 10,
      });
      expect((await tool("cancel_job", { job_id: spareRestore.job.id })).job.status).toBe(
        "cancelled",
      );
      await tool("create_top_up_link", { amount_cents: 500 });
      // A paid USDC top-up needs a chain: test/mcp/usdc.test.ts runs it through the SDK client.
      const untested = tools.map((t) => t.name).filter((n) => !called.has(n));
      expect(untested).toEqual(["top_up_with_usdc"]);
      await client.close();
    });
  }
});

/**
 * The OpenAPI document is valid OpenAPI 3.1 and says what the spec says: every operation has
 * an operationId, every request body an example, keyed operations their 400/401/402, POSTs
 * the Idempotency-Key header, and the resources carry the spec's fields and statuses.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/app.js";
import { FEATURES } from "../features.js";

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any;
let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await createTestApp({ features: FEATURES });
  doc = (await t.call("GET", "/openapi.json")).body;
});
afterAll(async () => {
  await t.close();
});

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );

/** The spec's field lists (SPEC.md "Resources and their fields"). */
const SPEC_FIELDS: Record<string, string[]> = {
  Wallet: ["wallet_id", "balance_cents", "spendable_cents", "paused", "email", "agent_key"],
  AgentKey: [
    "id",
    "label",
    "limit_cents",
    "spent_cents",
    "remaining_cents",
    "created_at",
    "last_used_at",
    "revoked",
  ],
  RestoreJob: ["id", "status", "quality", "amount_cents", "duration_sec", "download_url", "error"],
  Clip: [
    "id",
    "status",
    "size",
    "seconds",
    "prompt",
    "loop",
    "amount_cents",
    "seed",
    "video_url",
    "download_url",
    "error",
  ],
  RestoreRequest: ["duration_sec", "quality", "width", "height"],
  Error: ["detail", "needs_topup", "over_limit", "refused"],
};

const SPEC_ENDPOINTS = [
  "post /cloud/quote",
  "post /cloud/jobs",
  "get /cloud/jobs/{id}",
  "post /cloud/jobs/{id}/checkout",
  "post /cloud/jobs/{id}/start",
  "post /cloud/jobs/{id}/cancel",
  "get /motion/config",
  "get /motion/quote",
  "post /motion/jobs",
  "get /motion/jobs",
  "get /motion/jobs/{id}",
  "post /motion/jobs/{id}/start",
  "post /motion/jobs/{id}/cancel",
  "post /wallet",
  "get /wallet",
  "post /wallet/topup",
  "post /wallet/topup/crypto",
  "get /wallet/keys",
  "post /wallet/keys",
  "post /wallet/keys/{id}/revoke",
];

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1.0 document, version 1.0.0", async () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("has every spec endpoint, each with a unique operationId", () => {
    const ops = operations();
    const have = new Set(ops.map(({ method, path }) => `${method} ${path}`));
    for (const e of SPEC_ENDPOINTS) expect(have, e).toContain(e);
    const ids = ops.map(({ op }) => op.operationId);
    for (const { method, path, op } of ops)
      expect(op.operationId, `${method} ${path}`).toBeTruthy();
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gives every request body an example", () => {
    const missing: string[] = [];
    for (const { method, path, op } of operations()) {
      const media = op.requestBody?.content?.["application/json"];
      if (!media) continue;
      const schema = media.schema?.$ref
        ? doc.components.schemas[media.schema.$ref.split("/").pop()]
        : media.schema;
      if ((media.example ?? schema?.example) === undefined) missing.push(`${method} ${path}`);
    }
    expect(missing).toEqual([]);
  });

  it("declares 400, 401 and 402 on keyed operations and Idempotency-Key on POSTs", () => {
    for (const { method, path, op } of operations()) {
      if (op.security?.some((s: Json) => "bearer" in s)) {
        for (const status of ["400", "401", "402"]) {
          expect(op.responses[status], `${method} ${path} ${status}`).toBeDefined();
        }
      }
      if (method === "post" && !/^\/(webhooks|worker|hooks)\//.test(path) && path !== "/mcp") {
        const names = (op.parameters ?? []).map((p: Json) => p.name);
        expect(names, `${method} ${path}`).toContain("Idempotency-Key");
      }
    }
  });

  it("lets POST /cloud/jobs be called with or without a key", () => {
    expect(doc.paths["/cloud/jobs"].post.security).toEqual([{}, { bearer: [] }]);
  });

  it("carries the spec's fields and statuses", () => {
    const schemas = doc.components.schemas;
    for (const [name, fields] of Object.entries(SPEC_FIELDS)) {
      expect(schemas[name], name).toBeDefined();
      for (const f of fields)
        expect(Object.keys(schemas[name].properties), `${name}.${f}`).toContain(f);
    }
    expect(schemas.RestoreJob.properties.status.enum.sort()).toEqual(
      [
        "pending_payment",
        "awaiting_upload",
        "queued",
        "processing",
        "done",
        "failed",
        "refunded",
        "cancelled",
        "expired",
      ].sort(),
    );
    expect(schemas.Clip.properties.status.enum.sort()).toEqual(
      [
        "awaiting_upload",
        "queued",
        "processing",
        "done",
        "failed",
        "refused",
        "expired",
        "cancelled",
      ].sort(),
    );
    const clip = doc.paths["/motion/jobs"].post.requestBody.content["application/json"].schema;
    expect(clip.properties.seconds.type).toBe("integer");
    const pattern = new RegExp(clip.properties.image_url.pattern);
    expect(pattern.test("https://example.com/a.png")).toBe(true);
    expect(pattern.test("ftp://example.com/a.png")).toBe(false);
    const list = doc.paths["/motion/jobs"].get.responses["200"].content["application/json"].schema;
    expect(list.properties.clips.maxItems).toBe(40);
    const checkout =
      doc.paths["/cloud/jobs/{id}/checkout"].post.responses["200"].content["application/json"]
        .schema;
    expect(checkout.properties.job.$ref).toBe("#/components/schemas/RestoreJob");
    const usdc = doc.paths["/wallet/topup/crypto"].post.responses;
    expect(usdc["402"].headers["PAYMENT-REQUIRED"]).toBeDefined();
    expect(usdc["200"].headers["PAYMENT-RESPONSE"]).toBeDefined();
  });
});

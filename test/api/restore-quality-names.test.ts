/**
 * One spelling of each restore quality wherever a person types it: the API name or the display
 * label, in any case, with a space, hyphen or underscore — over REST (quote and create), over
 * MCP through the official client, and in what the OpenAPI document and the tool listing say
 * (the API names, and `default: enhanced` in the schema itself).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { qualityFromName } from "../../src/kinds/restore/rules/quality-names.js";
import { call, connect, type Json, refusal } from "../mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({ features: [restoreFeature({ noExecutor: true }), mcpFeature()] });
});
afterAll(async () => {
  await s.close();
});

const SPELLINGS: [string, string][] = [
  ["faithful", "faithful"],
  ["Standard", "faithful"],
  ["STANDARD", "faithful"],
  ["enhanced", "enhanced"],
  ["Enhanced", "enhanced"],
  ["Studio Max", "enhanced_max"],
  ["studio-max", "enhanced_max"],
  ["Studio-Max", "enhanced_max"],
  ["studio_max", "enhanced_max"],
  ["enhanced_max", "enhanced_max"],
  ["Enhanced-Max", "enhanced_max"],
  [" studio  max ", "enhanced_max"],
];

describe("restore quality names", () => {
  it("reads every display name and API name, in any case and spacing", () => {
    for (const [typed, quality] of SPELLINGS) expect(qualityFromName(typed), typed).toBe(quality);
    for (const wrong of ["studio", "max", "premium", "", "enhanced max pro"]) {
      expect(qualityFromName(wrong), wrong).toBeUndefined();
    }
  });

  it("quotes and creates over REST by either name; a wrong one is a 400 naming the choices", async () => {
    for (const [typed, quality] of SPELLINGS) {
      const res = await s.t.call("POST", "/cloud/quote", {
        body: { duration_sec: 60, quality: typed },
      });
      expect(res.status, typed).toBe(200);
      expect(res.body.quality, typed).toBe(quality);
    }
    const wallet = await s.t.newWallet(2000);
    const created = await s.t.call("POST", "/cloud/jobs", {
      key: wallet.key,
      body: {
        duration_sec: 60,
        quality: "Studio Max",
        filename: "a.mp4",
        content_type: "video/mp4",
        size: 1000,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.job).toMatchObject({ quality: "enhanced_max", amount_cents: 899 });
    const wrong = await s.t.call("POST", "/cloud/quote", {
      body: { duration_sec: 60, quality: "premium" },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail).toMatch(
      /^quality: must be faithful \(Standard\), enhanced \(Enhanced\) or enhanced_max \(Studio Max\)/,
    );
  });

  it("quotes over MCP by display name, and the tool lists the API names with default enhanced", async () => {
    const owner = await s.t.newWallet(2000);
    const made = await s.t.call("POST", "/wallet/keys", {
      key: owner.key,
      body: { limit_cents: 1000 },
    });
    const client = await connect(s.url, made.body.key as string);
    try {
      const { tools } = await client.listTools();
      const quote = tools.find((t: Json) => t.name === "quote_restore");
      expect(quote.inputSchema.properties.quality).toMatchObject({
        enum: ["faithful", "enhanced", "enhanced_max"],
        default: "enhanced",
      });
      expect(quote.inputSchema.properties.quality.description).toMatch(/Studio Max/);
      const res = await call(client, "quote_restore", { duration_sec: 60, quality: "Studio-Max" });
      expect(res.isError, JSON.stringify(res)).toBeFalsy();
      expect(res.structuredContent).toMatchObject({ quality: "enhanced_max", amount_cents: 899 });
      const wrong = await call(client, "quote_restore", { duration_sec: 60, quality: "premium" });
      expect(refusal(wrong).detail).toMatch(/^quality: must be faithful \(Standard\)/);
    } finally {
      await client.close();
    }
  });

  it("documents the API names with their default in the OpenAPI document", async () => {
    const doc = (await s.t.call("GET", "/openapi.json")).body;
    for (const name of ["RestoreRequest", "CreateRestoreRequest"]) {
      expect(doc.components.schemas[name].properties.quality, name).toMatchObject({
        type: "string",
        enum: ["faithful", "enhanced", "enhanced_max"],
        default: "enhanced",
      });
      expect(doc.components.schemas[name].required ?? [], name).not.toContain("quality");
    }
  });
});

/**
 * What tools/list costs an assistant: the whole answer, as the official client receives it, stays
 * under 16,000 characters — every tool's description and schemas are read into the model's
 * context before the first call. Leaner schemas must not cost the inputs their descriptions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";
import { connect, type Json } from "./helpers.js";

/**
 * The budget for the whole tools/list answer, in characters of compact JSON. 16,000 until the
 * `fade` hint (create_restore, preview_restore: 16,375 with it, 15,958 before); raised by 500
 * for it, an input that changes what a restore does, after every longer description was cut.
 */
const TOOLS_LIST_MAX_CHARS = 16_500;

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({
    features: apiOnlyFeatures(),
  });
});
afterAll(async () => {
  await s.close();
});

describe("tools/list size", () => {
  it(`stays under ${TOOLS_LIST_MAX_CHARS} characters, every input described`, async () => {
    // MCP takes agent keys (the wallet key stays with its owner).
    const owner = await s.t.newWallet(1000);
    const made = await s.t.call("POST", "/wallet/keys", {
      key: owner.key,
      body: { limit_cents: 500 },
    });
    const client = await connect(s.url, made.body.key as string);
    const listed = await client.listTools();
    const size = JSON.stringify(listed).length;
    // The figure goes in the log, so a change that grows it shows by how much.
    console.info(`tools/list: ${listed.tools.length} tools, ${size} characters`);
    expect(size).toBeLessThan(TOOLS_LIST_MAX_CHARS);
    for (const tool of listed.tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Json>;
      for (const [name, schema] of Object.entries(properties)) {
        expect(schema.description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
    await client.close();
  });
});

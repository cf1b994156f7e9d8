import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../../test/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe("GET /docs", () => {
  it("loads the reference UI from this server only (works without internet)", async () => {
    const page = await t.app.request("/docs");
    expect(page.status).toBe(200);
    const html = await page.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) expect(ref, ref).toMatch(/^\/docs\/assets\//);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    for (const ref of refs) {
      const asset = await t.app.request(ref);
      expect(asset.status, ref).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, ref).toBeGreaterThan(50);
    }
    expect((await t.app.request("/docs/assets/nope.js")).status).toBe(404);
  });
});

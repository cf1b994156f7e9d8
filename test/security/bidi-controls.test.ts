/**
 * Bidirectional controls in owner- and client-supplied text (issue 34): "\u202Egnp.exe" reads
 * "exe.png". They are refused at input, everywhere a caller sends text — every REST field and
 * query, every MCP argument, OAuth client registration — with a 400 naming the field, and
 * nothing changes. (The console's forms and pages: test/console/forms.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { ADMIN_TOKEN } from "../app.js";
import { call, connect, refusal } from "../mcp/helpers.js";
import { jobBody } from "../restore/helpers.js";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";

const RLO = "\u202E";
let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({
    env: { RATE_LIMITS: "off" },
    features: [...apiOnlyFeatures(), webhooksFeature({ kinds: [] }), connectedAppsFeature()],
  });
});
afterAll(async () => {
  await s.close();
});

const refusedFor = (field: string, char = "U\\+202E") =>
  expect.objectContaining({
    code: "invalid_field",
    detail: expect.stringMatching(
      new RegExp(`^${field}: must not contain bidirectional control characters \\(${char}\\)`),
    ),
  });

describe("bidirectional controls are refused at input", () => {
  it("in every REST field an owner or a client fills, naming it; nothing changes", async () => {
    const { key, walletId } = await s.t.newWallet(5000);
    const before = (await s.t.call("GET", "/wallet", { key })).body.wallet.balance_cents;
    const cases: [string, string, Record<string, unknown>, string, string?][] = [
      ["POST", "/wallet", { email: `a${RLO}@example.com` }, "email"],
      ["POST", "/wallet/keys", { label: `${RLO}gnp.exe`, limit_cents: 100 }, "label"],
      [
        "POST",
        "/wallet/webhooks",
        { url: "https://hooks.example.com/k", description: `${RLO}gnp.exe` },
        "description",
      ],
      [
        "POST",
        "/cloud/jobs",
        jobBody({ sizeBytes: 1000 }, { filename: `${RLO}4pm.exe` }),
        "filename",
      ],
      [
        "POST",
        "/cloud/jobs",
        { ...jobBody({ sizeBytes: 1000 }), pay_with: "checkout", email: `me\u2067@example.com` },
        "email",
        "U\\+2067",
      ],
      [
        "POST",
        "/motion/jobs",
        { prompt: `waves\u200F at dusk`, content_type: "image/png" },
        "prompt",
        "U\\+200F",
      ],
      [
        "POST",
        `/admin/wallets/${walletId}/credit`,
        { amount_cents: 100, reason: `gift${RLO}` },
        "reason",
      ],
      [
        "POST",
        "/cloud/quote",
        { duration_sec: 10, [`quality${RLO}`]: "faithful" },
        `quality${RLO}`,
      ],
    ];
    for (const [method, path, body, field, char] of cases) {
      const auth = path.startsWith("/admin") ? ADMIN_TOKEN : path === "/wallet" ? undefined : key;
      const res = await s.t.call(method, path, { body, ...(auth ? { key: auth } : {}) });
      expect(res.status, `${method} ${path} ${field}`).toBe(400);
      expect(res.body, `${method} ${path}`).toEqual(refusedFor(field.replace(RLO, "\u202E"), char));
    }
    // A query string too, by its REST name.
    const listed = await s.t.call("GET", `/cloud/jobs?cursor=${encodeURIComponent(`x${RLO}`)}`, {
      key,
    });
    expect(listed.status).toBe(400);
    expect(listed.body.detail).toMatch(/^cursor: .*bidirectional/);
    // Nothing was made or moved.
    const wallet = (await s.t.call("GET", "/wallet", { key })).body.wallet;
    expect(wallet.balance_cents).toBe(before);
    expect((await s.t.call("GET", "/wallet/keys", { key })).body.keys).toEqual([]);
    expect((await s.t.call("GET", "/wallet/webhooks", { key })).body.endpoints).toEqual([]);
    expect((await s.t.call("GET", "/cloud/jobs", { key })).body.jobs).toEqual([]);
    expect((await s.t.call("GET", "/motion/jobs", { key })).body.clips).toEqual([]);
  });

  it("in MCP arguments, naming the argument", async () => {
    const { key } = await s.t.newWallet(5000);
    const agent = await s.t.newAgentKey(key, 2000, { askBeforeSpending: false });
    const client = await connect(s.url, agent.key);
    const res = await call(client, "create_restore", {
      ...jobBody({ sizeBytes: 1000 }),
      filename: `${RLO}gnp.exe`,
    });
    expect(refusal(res)).toEqual(refusedFor("filename"));
    const clip = await call(client, "make_clip", { prompt: `a\u2066b`, content_type: "image/png" });
    expect(refusal(clip)).toEqual(refusedFor("prompt", "U\\+2066"));
    await client.close();
    expect(
      (await s.t.call("GET", "/wallet", { key: agent.key })).body.wallet.agent_key.spent_cents,
    ).toBe(0);
  });

  it("in an OAuth client registration's name and redirect URIs", async () => {
    const register = (metadata: Record<string, unknown>) =>
      fetch(`${s.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(metadata),
      });
    const named = await register({
      client_name: `${RLO}gnp.exe`,
      redirect_uris: ["http://127.0.0.1:9/cb"],
    });
    expect(named.status).toBe(400);
    expect(await named.json()).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringMatching(/^client_name: .*\(U\+202E\)/),
    });
    const redirect = await register({
      client_name: "Fine",
      redirect_uris: [`http://127.0.0.1:9/c${RLO}b`],
    });
    expect(redirect.status).toBe(400);
    expect(await redirect.json()).toMatchObject({
      error: "invalid_redirect_uri",
      error_description: expect.stringMatching(/^redirect_uris\.0: .*bidirectional/),
    });
    // Right-to-left names without controls are welcome.
    const hebrew = await register({
      client_name: "עוזר",
      redirect_uris: ["http://127.0.0.1:9/cb"],
    });
    expect(hebrew.status).toBe(201);
  });
});

/**
 * Composition in plain sight: each shared service is built once, by the feature that owns it,
 * with that feature's options — one checkout provider and one x402 gateway per server, whoever
 * else reaches them (MCP and the console run the payments feature's operations; the console's
 * forms lead to the checkout page the payments feature names). No memo decides by who asks first.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../../test/app.js";
import { FEATURES } from "../features.js";
import { createTestCheckoutProvider } from "../payments/test-checkout/provider.js";
import { createX402Gateway } from "../payments/x402/gateway.js";
import { consoleFeature } from "./console.js";

vi.mock("../payments/test-checkout/provider.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../payments/test-checkout/provider.js")>();
  return { ...real, createTestCheckoutProvider: vi.fn(real.createTestCheckoutProvider) };
});
vi.mock("../payments/x402/gateway.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../payments/x402/gateway.js")>();
  return { ...real, createX402Gateway: vi.fn(real.createX402Gateway) };
});

// USDC on, against addresses nothing listens on: the gateway learns the facilitator lazily.
const USDC_ON = {
  X402_ENABLED: "true",
  X402_PAY_TO: `0x${"ab".repeat(20)}`,
  X402_FACILITATOR_URL: "http://127.0.0.1:9/facilitator",
  X402_RPC_URL: "http://127.0.0.1:9/rpc",
};
// Stripe configured: its checkout page lives on another origin, which the console must allow.
const STRIPE = { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_x" };

let t: TestApp;
beforeAll(async () => {
  vi.mocked(createTestCheckoutProvider).mockClear();
  vi.mocked(createX402Gateway).mockClear();
  t = await createTestApp({ features: FEATURES, env: USDC_ON });
});
afterAll(async () => {
  await t?.close();
});

describe("shared services", () => {
  it("are built once per server, by the payments feature, for every feature that reaches them", () => {
    expect(t.features.map((f) => f.name)).toEqual(
      expect.arrayContaining(["payments", "mcp", "console"]),
    );
    expect(createTestCheckoutProvider).toHaveBeenCalledTimes(1);
    expect(createX402Gateway).toHaveBeenCalledTimes(1);
  });

  it("are per platform: another server builds its own", async () => {
    const other = await createTestApp({ features: FEATURES, env: USDC_ON });
    try {
      expect(createTestCheckoutProvider).toHaveBeenCalledTimes(2);
      expect(createX402Gateway).toHaveBeenCalledTimes(2);
    } finally {
      await other.close();
    }
  });

  it("reach the console's pages through the payments feature: its forms may lead to the checkout page", async () => {
    const page = async (app: TestApp) => {
      const res = await app.app.request("/console");
      return res.headers.get("content-security-policy") ?? "";
    };
    const stripe = await createTestApp({ features: FEATURES, env: STRIPE });
    const alone = await createTestApp({ features: [consoleFeature()], env: STRIPE });
    try {
      expect(await page(stripe)).toMatch(/form-action[^;]*https:\/\/checkout\.stripe\.com/);
      // Without the payments feature there is no checkout to lead to.
      expect(await page(alone)).not.toMatch(/checkout\.stripe\.com/);
    } finally {
      await stripe.close();
      await alone.close();
    }
  });
});

/**
 * Every feature that calls the payment services gets the same bundle: one checkout
 * provider and one x402 gateway per process (they were built once by each of the payments
 * feature, the MCP server and the console).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../../test/app.js";
import { FEATURES } from "../features.js";
import { createTestCheckoutProvider } from "../payments/test-checkout/provider.js";
import { createX402Gateway } from "../payments/x402/gateway.js";
import { createPaymentsDeps } from "./payments.js";

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

let t: TestApp;
beforeAll(async () => {
  vi.mocked(createTestCheckoutProvider).mockClear();
  vi.mocked(createX402Gateway).mockClear();
  t = await createTestApp({ features: FEATURES, env: USDC_ON });
});
afterAll(async () => {
  await t?.close();
});

describe("shared service bundles", () => {
  it("build one checkout provider and one x402 gateway for every feature of a server", async () => {
    expect(t.features.map((f) => f.name)).toEqual(
      expect.arrayContaining(["payments", "mcp", "console"]),
    );
    expect(createTestCheckoutProvider).toHaveBeenCalledTimes(1);
    expect(createX402Gateway).toHaveBeenCalledTimes(1);
    // A later caller gets the same services, not another build.
    const again = await createPaymentsDeps(t.platform);
    expect(again.deps.usdc?.gateway).toBe(vi.mocked(createX402Gateway).mock.results[0]?.value);
    expect(createTestCheckoutProvider).toHaveBeenCalledTimes(1);
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
});

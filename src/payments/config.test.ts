import { describe, expect, it } from "vitest";
import { ConfigError } from "../config.js";
import { loadPaymentsConfig } from "./config.js";

const X402 = {
  X402_ENABLED: "true",
  X402_PAY_TO: "0x1111111111111111111111111111111111111111",
  X402_FACILITATOR_URL: "https://facilitator.example",
  X402_RPC_URL: "https://rpc.example",
};

const error = (env: Record<string, string>) => {
  try {
    loadPaymentsConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("payments configuration", () => {
  it("defaults to the test checkout and USDC off", () => {
    const cfg = loadPaymentsConfig({});
    expect(cfg.checkout.kind).toBe("test");
    expect(cfg.x402).toBeUndefined();
  });

  it("uses Stripe when both keys are set, and needs both", () => {
    const cfg = loadPaymentsConfig({
      STRIPE_SECRET_KEY: "sk_test_abc",
      STRIPE_WEBHOOK_SECRET: "whsec_abc",
    });
    expect(cfg.checkout).toMatchObject({ kind: "stripe", secretKey: "sk_test_abc" });
    expect(error({ STRIPE_SECRET_KEY: "sk_test_abc" })).toContain("STRIPE_WEBHOOK_SECRET");
    expect(error({ STRIPE_WEBHOOK_SECRET: "whsec_abc" })).toContain("STRIPE_SECRET_KEY");
  });

  it("links transactions to Basescan only on Base chains unless an explorer is set", () => {
    expect(loadPaymentsConfig(X402).x402?.explorerTxUrl).toBe("https://basescan.org/tx/{tx}");
    const sepolia = loadPaymentsConfig({ ...X402, X402_NETWORK: "eip155:84532" });
    expect(sepolia.x402?.explorerTxUrl).toBe("https://sepolia.basescan.org/tx/{tx}");
    const other = loadPaymentsConfig({ ...X402, X402_NETWORK: "eip155:1337" });
    expect(other.x402?.explorerTxUrl).toBeUndefined();
    const own = loadPaymentsConfig({
      ...X402,
      X402_NETWORK: "eip155:1337",
      X402_EXPLORER_TX_URL: "https://scan.example/tx/{tx}",
    });
    expect(own.x402?.explorerTxUrl).toBe("https://scan.example/tx/{tx}");
  });

  it("points the Stripe SDK at STRIPE_API_BASE (a local Stripe mock)", () => {
    const cfg = loadPaymentsConfig({
      STRIPE_SECRET_KEY: "sk_test_abc",
      STRIPE_WEBHOOK_SECRET: "whsec_abc",
      STRIPE_API_BASE: "http://127.0.0.1:12111",
    });
    expect(cfg.checkout).toMatchObject({
      apiBase: { host: "127.0.0.1", port: 12111, protocol: "http" },
    });
    expect(error({ STRIPE_API_BASE: "not a url" })).toContain("STRIPE_API_BASE");
  });

  it("refuses CHECKOUT=test while Stripe keys are set", () => {
    const message = error({
      CHECKOUT: "test",
      STRIPE_SECRET_KEY: "sk_live_abc",
      STRIPE_WEBHOOK_SECRET: "whsec_abc",
    });
    expect(message).toMatch(/CHECKOUT: the built-in test checkout cannot be enabled/);
  });

  it("builds Base mainnet USDC terms from the required variables", () => {
    const cfg = loadPaymentsConfig({
      ...X402,
      X402_FACILITATOR_HEADERS: '{"Authorization":"Bearer x"}',
    });
    expect(cfg.x402).toMatchObject({
      network: "eip155:8453",
      chainId: 8453,
      asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      assetName: "USD Coin",
      assetVersion: "2",
      confirmations: 2,
      explorerTxUrl: "https://basescan.org/tx/{tx}",
      facilitatorHeaders: { Authorization: "Bearer x" },
    });
  });

  it("names each missing or bad X402 variable", () => {
    for (const name of ["X402_PAY_TO", "X402_FACILITATOR_URL", "X402_RPC_URL"]) {
      const env: Record<string, string> = { ...X402 };
      delete env[name];
      expect(error(env)).toContain(`${name}: is required when X402_ENABLED=true`);
    }
    expect(error({ ...X402, X402_FACILITATOR_HEADERS: "nope" })).toContain(
      "X402_FACILITATOR_HEADERS",
    );
    expect(error({ ...X402, X402_CHAIN_ID: "1" })).toContain("X402_CHAIN_ID");
    expect(error({ ...X402, X402_REFUND_PRIVATE_KEY: "0x12" })).toContain(
      "X402_REFUND_PRIVATE_KEY",
    );
  });
});

/**
 * The payments section of the environment (card checkout and USDC), parsed from Config.env.
 * Incomplete combinations stop the start with a ConfigError naming the missing variable:
 * a half-configured payment method must never look switched on.
 */

import { isHex } from "viem";
import { z } from "zod";
import { ConfigError } from "../config.js";
import {
  BASE_MAINNET_DEFAULTS,
  KNOWN_EXPLORERS,
  validateX402Config,
  type X402Config,
} from "./x402/config.js";

const Bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

const PaymentsEnv = z.object({
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\w+$/, "must be an sk_… or rk_… key")
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\w+$/, "must be the whsec_… signing secret")
    .optional(),
  CHECKOUT: z.enum(["stripe", "test"]).optional(),
  STRIPE_API_BASE: z
    .string()
    .url()
    .regex(/^https?:\/\/[^/]+\/?$/, "must be a base URL like http://127.0.0.1:12111")
    .optional(),
  CHECKOUT_EXPIRY_MINUTES: z.coerce.number().int().min(30).max(1440).default(60),
  PAYMENTS_POLL_MS: z.coerce.number().int().min(200).max(600_000).default(5_000),
  X402_ENABLED: Bool.default(false),
  X402_NETWORK: z
    .string()
    .regex(/^eip155:\d+$/, "must look like eip155:8453")
    .optional(),
  X402_CHAIN_ID: z.coerce.number().int().positive().optional(),
  X402_ASSET: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x… token address")
    .optional(),
  X402_ASSET_NAME: z.string().min(1).default(BASE_MAINNET_DEFAULTS.assetName),
  X402_ASSET_VERSION: z.string().min(1).default(BASE_MAINNET_DEFAULTS.assetVersion),
  X402_PAY_TO: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x… address")
    .optional(),
  X402_FACILITATOR_URL: z.string().url().optional(),
  X402_FACILITATOR_HEADERS: z.string().optional(),
  X402_RPC_URL: z.string().url().optional(),
  X402_FACILITATOR_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(30_000),
  X402_CONFIRMATIONS: z.coerce.number().int().min(1).max(100).default(2),
  X402_EXPLORER_TX_URL: z.string().includes("{tx}", { message: "must contain {tx}" }).optional(),
  X402_REFUND_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex key")
    .optional(),
});

type CheckoutConfig =
  | {
      kind: "stripe";
      secretKey: string;
      webhookSecret: string;
      expiryMinutes: number;
      /** Where the Stripe SDK sends API calls (a local Stripe mock); default api.stripe.com. */
      apiBase?: { host: string; port: number; protocol: "http" | "https" };
    }
  | { kind: "test"; expiryMinutes: number };

/** The payment settings: which checkout, and USDC top-ups if on. */
export interface PaymentsConfig {
  checkout: CheckoutConfig;
  /** Undefined when USDC top-ups are off (the endpoint answers 503). */
  x402: X402Config | undefined;
  /** How often the background task confirms USDC, expires checkouts and sends card refunds. */
  pollMs: number;
}

function fail(lines: string[]): never {
  throw new ConfigError(`Invalid configuration:\n${lines.map((l) => `  ${l}`).join("\n")}`);
}

/** Reads and checks the payment settings; refuses a half-set provider. */
export function loadPaymentsConfig(env: Readonly<Record<string, string>>): PaymentsConfig {
  const parsed = PaymentsEnv.safeParse(env);
  if (!parsed.success) {
    fail(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  const e = parsed.data;
  return { checkout: checkoutConfig(e), x402: x402Config(e), pollMs: e.PAYMENTS_POLL_MS };
}

type Parsed = z.infer<typeof PaymentsEnv>;

function checkoutConfig(e: Parsed): CheckoutConfig {
  const hasKey = e.STRIPE_SECRET_KEY !== undefined;
  const hasSecret = e.STRIPE_WEBHOOK_SECRET !== undefined;
  if (hasKey !== hasSecret) {
    const missing = hasKey ? "STRIPE_WEBHOOK_SECRET" : "STRIPE_SECRET_KEY";
    fail([
      `${missing}: is required too; set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET together, or neither for the test checkout`,
    ]);
  }
  if (e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET) {
    if (e.CHECKOUT === "test") {
      fail([
        "CHECKOUT: the built-in test checkout cannot be enabled while Stripe keys are set; remove CHECKOUT=test or the STRIPE_* keys",
      ]);
    }
    return {
      kind: "stripe",
      secretKey: e.STRIPE_SECRET_KEY,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET,
      expiryMinutes: e.CHECKOUT_EXPIRY_MINUTES,
      ...(e.STRIPE_API_BASE ? { apiBase: apiBase(e.STRIPE_API_BASE) } : {}),
    };
  }
  if (e.CHECKOUT === "stripe") {
    fail(["STRIPE_SECRET_KEY: is required when CHECKOUT=stripe (with STRIPE_WEBHOOK_SECRET)"]);
  }
  return { kind: "test", expiryMinutes: e.CHECKOUT_EXPIRY_MINUTES };
}

const isEip155 = (v: string): v is `eip155:${number}` => /^eip155:\d+$/.test(v);

function x402Config(e: Parsed): X402Config | undefined {
  if (!e.X402_ENABLED) return undefined;
  const required = ["X402_PAY_TO", "X402_FACILITATOR_URL", "X402_RPC_URL"] as const;
  const missing = required.filter((name) => e[name] === undefined);
  const { X402_PAY_TO: payTo, X402_FACILITATOR_URL: facilitatorUrl, X402_RPC_URL: rpcUrl } = e;
  if (missing.length > 0 || payTo === undefined || !facilitatorUrl || !rpcUrl) {
    fail(missing.map((name) => `${name}: is required when X402_ENABLED=true`));
  }
  // The schema's patterns already held; the guards carry them into the types.
  const network = e.X402_NETWORK ?? BASE_MAINNET_DEFAULTS.network;
  const asset = e.X402_ASSET ?? BASE_MAINNET_DEFAULTS.asset;
  const refundKey = e.X402_REFUND_PRIVATE_KEY;
  if (!isEip155(network) || !isHex(asset) || !isHex(payTo)) fail(["X402_*: malformed"]);
  if (refundKey !== undefined && !isHex(refundKey)) fail(["X402_REFUND_PRIVATE_KEY: malformed"]);
  const chainId = e.X402_CHAIN_ID ?? Number(network.slice("eip155:".length));
  try {
    return validateX402Config({
      ...BASE_MAINNET_DEFAULTS,
      network,
      chainId,
      asset,
      assetName: e.X402_ASSET_NAME,
      assetVersion: e.X402_ASSET_VERSION,
      payTo,
      facilitatorUrl,
      facilitatorHeaders: facilitatorHeaders(e.X402_FACILITATOR_HEADERS),
      facilitatorTimeoutMs: e.X402_FACILITATOR_TIMEOUT_MS,
      rpcUrl,
      confirmations: e.X402_CONFIRMATIONS,
      // Base's explorer is the default only on Base chains; elsewhere no link unless set.
      explorerTxUrl: e.X402_EXPLORER_TX_URL ?? KNOWN_EXPLORERS[chainId],
      refundPrivateKey: refundKey,
    });
  } catch (err) {
    return fail([
      `X402_*: ${err instanceof Error ? err.message : String(err)} (X402_CHAIN_ID must agree with X402_NETWORK)`,
    ]);
  }
}

function facilitatorHeaders(raw: string | undefined): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    fail(['X402_FACILITATOR_HEADERS: must be a JSON object like {"Authorization":"Bearer …"}']);
  }
  const headers = z.record(z.string(), z.string()).safeParse(value);
  if (!headers.success) {
    fail(["X402_FACILITATOR_HEADERS: must be a JSON object of string header values"]);
  }
  return headers.data;
}

function apiBase(raw: string): { host: string; port: number; protocol: "http" | "https" } {
  const url = new URL(raw);
  const protocol = url.protocol === "http:" ? "http" : "https";
  const port = url.port ? Number(url.port) : protocol === "http" ? 80 : 443;
  return { host: url.hostname, port, protocol };
}

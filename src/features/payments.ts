/**
 * The payments feature ("Money in"): card top-ups through Stripe Checkout or the built-in
 * test checkout, pay-per-job restore checkouts, the Stripe webhook, USDC top-ups over x402
 * and operator USDC refunds; its background task confirms USDC, expires checkouts and sends
 * queued card refunds. Configuration comes from Config.env (src/payments/config.ts).
 */

import type { Feature, FeatureFactory, Platform } from "../feature.js";
import { registerStripeWebhook } from "../http/routes/payments/stripe-webhook.js";
import { restoreCheckoutOperations } from "../kinds/restore/operations.js";
import { getJobForCheckout, markCheckoutPaid } from "../kinds/restore/services/checkout-hooks.js";
import { findJob } from "../kinds/restore/services/store.js";
import { jobView } from "../kinds/restore/services/views.js";
import { paymentsAdminOperations } from "../operations/admin.js";
import { topupOperations } from "../operations/payments.js";
import type { CheckoutProvider } from "../payments/checkout/provider.js";
import type {
  StripeCheckoutProvider,
  StripeProviderOptions,
} from "../payments/checkout/stripe-provider.js";
import { loadPaymentsConfig, type PaymentsConfig } from "../payments/config.js";
import { createTestCheckoutProvider } from "../payments/test-checkout/provider.js";
import type { RpcClientOptions } from "../payments/x402/confirm.js";
import type { X402GatewayOptions } from "../payments/x402/gateway.js";
import { startPaymentTasks } from "../services/payments/background.js";
import type { PaymentsDeps, RestoreCheckoutHooks } from "../services/payments/deps.js";
import { registerCheckoutPages } from "../web/checkout-routes.js";
import { sharedBundle } from "./shared-services.js";

/** What a test may replace in the payments feature. */
export interface PaymentsFeatureOptions {
  /** Test seam: send Stripe API calls to a local fake. */
  stripeApiBase?: StripeProviderOptions["apiBase"];
  /** Test seam: facilitator client override, RPC options (no retries/cache in tests). */
  x402?: { gateway?: X402GatewayOptions; rpc?: RpcClientOptions };
  /** The restore area's checkout hooks (default: the real ones); null leaves out POST /cloud/jobs/{id}/checkout. */
  restore?: RestoreCheckoutHooks | null;
  /** Receives the built deps (tests drive services and the background pass directly). */
  onDeps?: (deps: PaymentsDeps) => void;
}

/** Pay-per-job restores: the restore area's side, wired to its real implementation. */
const RESTORE_HOOKS: RestoreCheckoutHooks = {
  getJobForCheckout,
  markCheckoutPaid,
  async viewJob(p, jobId) {
    const row = await findJob(p.db, jobId);
    return row ? jobView(p, row) : undefined;
  },
};

/**
 * Money in: card top-ups and checkouts, the Stripe webhook, USDC top-ups and their background
 * tasks.
 */
export function paymentsFeature(options: PaymentsFeatureOptions = {}): FeatureFactory {
  return (platform) => buildPaymentsFeature(platform, options);
}

/** The payment services of a platform, with the configuration they were built from. */
interface PaymentsServices {
  deps: PaymentsDeps;
  config: PaymentsConfig;
  stripe?: StripeCheckoutProvider;
}

/**
 * The payment services' dependencies for this platform, built from Config.env once per
 * platform (features/shared-services.ts): the payments feature, the MCP tools and the console
 * share one checkout provider and one x402 gateway. The Stripe SDK and the x402/viem stack are
 * imported only when configured (they take about a second to load). Rejects with ConfigError
 * for an incomplete payments configuration.
 */
export function createPaymentsDeps(
  platform: Platform,
  options: PaymentsFeatureOptions = {},
): Promise<PaymentsServices> {
  return sharedBundle(platform, "payments", () => buildPaymentsDeps(platform, options));
}

async function buildPaymentsDeps(
  platform: Platform,
  options: PaymentsFeatureOptions,
): Promise<PaymentsServices> {
  const config = loadPaymentsConfig(platform.config.env);
  const { provider, stripe } = await checkoutProvider(platform, config, options);
  let usdc: PaymentsDeps["usdc"];
  if (config.x402) {
    const { createX402Gateway } = await import("../payments/x402/gateway.js");
    const { withChecksummedAddresses } = await import("../payments/x402/checksum.js");
    const x402 = withChecksummedAddresses(config.x402);
    usdc = {
      config: x402,
      gateway: createX402Gateway(x402, options.x402?.gateway),
      rpc: options.x402?.rpc,
      now: () => new Date(),
    };
  }
  const deps: PaymentsDeps = {
    platform,
    checkout: provider,
    checkoutExpiryMinutes: config.checkout.expiryMinutes,
    restore: options.restore === null ? undefined : (options.restore ?? RESTORE_HOOKS),
    usdc,
  };
  return { deps, config, ...(stripe ? { stripe } : {}) };
}

async function buildPaymentsFeature(
  platform: Platform,
  options: PaymentsFeatureOptions,
): Promise<Feature> {
  const { deps, config, stripe } = await createPaymentsDeps(platform, options);
  if (deps.checkout.kind === "test") {
    platform.log.warn("card checkout is in TEST MODE (no Stripe keys): no real money is taken");
  }
  options.onDeps?.(deps);
  return {
    name: "payments",
    operations: [
      ...topupOperations(deps),
      ...(deps.restore ? restoreCheckoutOperations(deps) : []),
      ...paymentsAdminOperations(deps),
    ],
    routes(app) {
      if (stripe) registerStripeWebhook(app, deps, stripe);
      registerCheckoutPages(app, deps, platform.signer);
    },
    async start() {
      return startPaymentTasks(deps, config.pollMs);
    },
  };
}

async function checkoutProvider(
  platform: Platform,
  config: PaymentsConfig,
  options: PaymentsFeatureOptions,
): Promise<{ provider: CheckoutProvider; stripe?: StripeCheckoutProvider }> {
  if (config.checkout.kind === "stripe") {
    const { createStripeProvider } = await import("../payments/checkout/stripe-provider.js");
    const stripe = createStripeProvider({
      secretKey: config.checkout.secretKey,
      webhookSecret: config.checkout.webhookSecret,
      apiBase: options.stripeApiBase ?? config.checkout.apiBase,
      clock: platform.clock,
    });
    return { provider: stripe, stripe };
  }
  return {
    provider: createTestCheckoutProvider({
      db: platform.db,
      publicUrl: () => platform.publicUrl,
      newId: () => platform.ids("co").replace(/^co_/, "tre_"),
    }),
  };
}

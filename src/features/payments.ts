/**
 * The payments feature ("Money in"): card top-ups through Stripe Checkout or the built-in
 * test checkout, pay-per-job restore checkouts, the Stripe webhook, USDC top-ups over x402
 * and operator USDC refunds; its background task confirms USDC, expires checkouts and sends
 * queued card refunds. Configuration comes from Config.env (src/payments/config.ts).
 */
import { registerCreateTopup } from "../http/routes/payments/create-topup.js";
import { registerCryptoTopup } from "../http/routes/payments/crypto-topup.js";
import { registerRestoreCheckout } from "../http/routes/payments/restore-checkout.js";
import { registerStripeWebhook } from "../http/routes/payments/stripe-webhook.js";
import { registerUsdcRefund } from "../http/routes/payments/usdc-refund.js";
import type { CheckoutProvider } from "../payments/checkout/provider.js";
import {
  createStripeProvider,
  type StripeCheckoutProvider,
  type StripeProviderOptions,
} from "../payments/checkout/stripe-provider.js";
import { loadPaymentsConfig, type PaymentsConfig } from "../payments/config.js";
import { createTestCheckoutProvider } from "../payments/test-checkout/provider.js";
import type { RpcClientOptions } from "../payments/x402/confirm.js";
import { createX402Gateway, type X402GatewayOptions } from "../payments/x402/gateway.js";
import type { Feature, FeatureFactory, Platform } from "../platform.js";
import { startPaymentTasks } from "../services/payments/background.js";
import type { PaymentsDeps, RestoreCheckoutHooks } from "../services/payments/deps.js";
import { getJobForCheckout, markCheckoutPaid } from "../services/restore/checkout-hooks.js";
import { findJob } from "../services/restore/store.js";
import { jobView } from "../services/restore/views.js";
import { registerCheckoutPages } from "../web/checkout-routes.js";

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
export const RESTORE_HOOKS: RestoreCheckoutHooks = {
  getJobForCheckout,
  markCheckoutPaid,
  async viewJob(p, jobId) {
    const row = await findJob(p.db, jobId);
    return row ? jobView(p, row) : undefined;
  },
};

export function paymentsFeature(options: PaymentsFeatureOptions = {}): FeatureFactory {
  return (platform) => buildPaymentsFeature(platform, options);
}

/**
 * The payment services' dependencies for this platform, built from Config.env. Exported so
 * other surfaces (the MCP tools create_top_up_link and top_up_with_usdc) call the same services.
 * Throws ConfigError for an incomplete payments configuration.
 */
export function createPaymentsDeps(
  platform: Platform,
  options: PaymentsFeatureOptions = {},
): { deps: PaymentsDeps; config: PaymentsConfig; stripe?: StripeCheckoutProvider } {
  const config = loadPaymentsConfig(platform.config.env);
  const { provider, stripe } = checkoutProvider(platform, config, options);
  const deps: PaymentsDeps = {
    platform,
    checkout: provider,
    checkoutExpiryMinutes: config.checkout.expiryMinutes,
    restore: options.restore === null ? undefined : (options.restore ?? RESTORE_HOOKS),
    usdc: config.x402
      ? {
          config: config.x402,
          gateway: createX402Gateway(config.x402, options.x402?.gateway),
          rpc: options.x402?.rpc,
          now: () => new Date(),
        }
      : undefined,
  };
  return { deps, config, ...(stripe ? { stripe } : {}) };
}

export function buildPaymentsFeature(platform: Platform, options: PaymentsFeatureOptions): Feature {
  const { deps, config, stripe } = createPaymentsDeps(platform, options);
  if (deps.checkout.kind === "test") {
    platform.log.warn("card checkout is in TEST MODE (no Stripe keys): no real money is taken");
  }
  options.onDeps?.(deps);
  return {
    name: "payments",
    routes(app) {
      registerCreateTopup(app, deps);
      registerCryptoTopup(app, deps);
      if (stripe) registerStripeWebhook(app, deps, stripe);
      if (deps.restore) registerRestoreCheckout(app, deps);
      registerUsdcRefund(app, deps);
      registerCheckoutPages(app, deps);
    },
    async start() {
      return startPaymentTasks(deps, config.pollMs);
    },
  };
}

function checkoutProvider(
  platform: Platform,
  config: PaymentsConfig,
  options: PaymentsFeatureOptions,
): { provider: CheckoutProvider; stripe?: StripeCheckoutProvider } {
  if (config.checkout.kind === "stripe") {
    const stripe = createStripeProvider({
      secretKey: config.checkout.secretKey,
      webhookSecret: config.checkout.webhookSecret,
      apiBase: options.stripeApiBase,
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

/**
 * The payments feature ("Money in"): card top-ups through Stripe Checkout or the built-in
 * test checkout, pay-per-job restore checkouts, the Stripe webhook, USDC top-ups over x402
 * and operator USDC refunds; its background task confirms USDC, expires checkouts and sends
 * queued card refunds. Configuration comes from Config.env (src/payments/config.ts).
 */

import type { Feature, FeatureFactory, Platform } from "../feature.js";
import { registerStripeWebhook } from "../http/routes/payments/stripe-webhook.js";
import type { KindCheckout } from "../kinds/kind.js";
import { restoreKind } from "../kinds/restore/kind.js";
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
import { cancelCheckout, completeCheckout, findCheckout } from "../services/payments/checkouts.js";
import type { PaymentsDeps } from "../services/payments/deps.js";
import { type CheckoutActions, registerCheckoutPages } from "../web/checkout-routes.js";

/** The checkout pages' reads and actions, over the checkout services. */
function checkoutActions(deps: PaymentsDeps): CheckoutActions {
  return {
    find: (id) => findCheckout(deps, id),
    pay: async (id) => {
      await completeCheckout(deps, id, { providerPaymentId: `testpay_${id}` });
    },
    cancel: async (id) => {
      await cancelCheckout(deps, id);
    },
    clock: () => deps.platform.clock(),
  };
}

/** What a test may replace in the payments feature. */
export interface PaymentsFeatureOptions {
  /** Test seam: send Stripe API calls to a local fake. */
  stripeApiBase?: StripeProviderOptions["apiBase"];
  /** Test seam: facilitator client override, RPC options (no retries/cache in tests). */
  x402?: { gateway?: X402GatewayOptions; rpc?: RpcClientOptions };
  /**
   * The pay-per-job checkout of the kind that takes one (`kinora serve` passes the registry's,
   * src/features.ts); default: restore's, for feature lists that name no kinds (tests); null
   * serves top-ups only.
   */
  checkout?: KindCheckout | null;
  /** Receives the built deps (tests drive services and the background pass directly). */
  onDeps?: (deps: PaymentsDeps) => void;
}

/**
 * Money in: card top-ups and checkouts, the Stripe webhook, USDC top-ups and their background
 * tasks.
 */
export function paymentsFeature(options: PaymentsFeatureOptions = {}): FeatureFactory {
  return (platform) => buildPaymentsFeature(platform, options);
}

/** The pay-per-job checkout this feature sells: the one it was given, or restore's. */
const kindCheckout = (options: PaymentsFeatureOptions): KindCheckout | undefined =>
  options.checkout === null ? undefined : (options.checkout ?? restoreKind.checkout);

/** The payment services of a platform, with the configuration they were built from. */
interface PaymentsServices {
  deps: PaymentsDeps<Platform>;
  config: PaymentsConfig;
  stripe?: StripeCheckoutProvider;
}

/**
 * The payment services of this platform, built from Config.env and this feature's options by
 * the payments feature alone — the one checkout provider and x402 gateway of the server. The
 * other surfaces reach them through the feature: MCP and the console run its operations, and
 * the console's forms lead to the checkout page the feature names (Feature.formTargets). The
 * Stripe SDK and the x402/viem stack are imported only when configured (they take about a
 * second to load). Rejects with ConfigError for an incomplete payments configuration.
 */
async function buildPaymentsServices(
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
  const checkout = kindCheckout(options);
  const deps: PaymentsDeps<Platform> = {
    platform,
    checkout: provider,
    checkoutExpiryMinutes: config.checkout.expiryMinutes,
    restore: checkout?.hooks,
    usdc,
  };
  return { deps, config, ...(stripe ? { stripe } : {}) };
}

async function buildPaymentsFeature(
  platform: Platform,
  options: PaymentsFeatureOptions,
): Promise<Feature> {
  const { deps, config, stripe } = await buildPaymentsServices(platform, options);
  const checkout = kindCheckout(options);
  if (deps.checkout.kind === "test") {
    platform.log.warn("card checkout is in TEST MODE (no Stripe keys): no real money is taken");
  }
  options.onDeps?.(deps);
  return {
    name: "payments",
    operations: [
      ...topupOperations(deps),
      ...(checkout ? checkout.operations(deps) : []),
      ...paymentsAdminOperations(deps),
    ],
    // A top-up form leads to the checkout's page (the pages' CSP form-action allows it).
    formTargets: () => [deps.checkout.pageOrigin()],
    routes(app) {
      if (stripe) registerStripeWebhook(app, deps, stripe);
      registerCheckoutPages(app, checkoutActions(deps), platform.signer);
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

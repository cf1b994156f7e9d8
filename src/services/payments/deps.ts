/** What the payment services receive: the core services plus the configured payment providers. */

import type { ApiError } from "../../domain/errors.js";
import type { KinoraEvents } from "../../domain/events.js";
import type { RestoreJobView } from "../../kinds/restore/api/schemas.js";
import type { RestoreDeps } from "../../kinds/restore/services/deps.js";
import type { CheckoutProvider } from "../../payments/checkout/provider.js";
import type { X402Config } from "../../payments/x402/config.js";
import type { RpcClientOptions } from "../../payments/x402/confirm.js";
import type { X402Gateway } from "../../payments/x402/gateway.js";

/** The restore area's side of a pay-per-job checkout (src/kinds/restore/services/checkout-hooks.ts). */
export interface RestoreCheckoutHooks {
  /** Throws a 404 ApiError for an unknown job. */
  getJobForCheckout(
    p: RestoreDeps,
    jobId: string,
  ): Promise<{
    id: string;
    status: string;
    amountCents: number;
    email: string | null;
    display: string;
    description?: string;
    uploaded: boolean;
    /** Why the file is not usable yet (not_uploaded or upload_mismatch). */
    uploadProblem?: ApiError;
  }>;
  /** pending_payment → processing; idempotent. Runs inside the checkout's transaction. */
  markCheckoutPaid(p: RestoreDeps, jobId: string, opts: { paymentRef: string }): Promise<unknown>;
  /** The RestoreJob as the API shows it. */
  viewJob(p: RestoreDeps, jobId: string): Promise<RestoreJobView | undefined>;
}

/** USDC top-ups' settings and gateway, when they are on. */
export interface UsdcRuntime {
  config: X402Config;
  gateway: X402Gateway;
  /** viem options for our own RPC reads (tests: no retries, no cache). */
  rpc?: RpcClientOptions;
  /** Real time for the chain side: authorizations are signed against wall-clock time. */
  now: () => Date;
}

/**
 * The shared services payments run on. It is also what the restore hooks receive, since a
 * pay-per-job checkout moves a restore job; `publicUrl` builds the checkout pages' links.
 */
export interface PaymentsPlatform extends RestoreDeps {
  publicUrl: string;
  /** Payment outcomes are reported here (metrics listen). */
  events: KinoraEvents;
}

/** What the payment services need: the platform slice, the checkout provider, USDC. */
export interface PaymentsDeps {
  platform: PaymentsPlatform;
  checkout: CheckoutProvider;
  checkoutExpiryMinutes: number;
  restore: RestoreCheckoutHooks | undefined;
  usdc: UsdcRuntime | undefined;
}

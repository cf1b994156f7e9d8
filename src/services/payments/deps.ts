/** What the payment services receive: the core services plus the configured payment providers. */

import type { ApiError } from "../../domain/errors.js";
import type { KinoraEvents } from "../../domain/events.js";
import type { CheckoutProvider } from "../../payments/checkout/provider.js";
import type { X402Config } from "../../payments/x402/config.js";
import type { RpcClientOptions } from "../../payments/x402/confirm.js";
import type { X402Gateway } from "../../payments/x402/gateway.js";
import type { CoreDeps } from "../deps.js";

/** A job as a pay-per-job checkout needs it: its price, e-mail and whether its file arrived. */
export interface CheckoutJob {
  id: string;
  status: string;
  amountCents: number;
  email: string | null;
  display: string;
  description?: string;
  uploaded: boolean;
  /** Why the file is not usable yet (not_uploaded or upload_mismatch). */
  uploadProblem?: ApiError;
}

/**
 * A job kind's side of a pay-per-job checkout, over the platform `P` the kind's services run
 * on. The kind declares it (restore's: src/kinds/restore/kind.ts) and composition hands it
 * here, so the payment services name no kind's types.
 */
export interface JobCheckoutHooks<P extends PaymentsPlatform = PaymentsPlatform> {
  /** Throws a 404 ApiError for an unknown job. */
  getJobForCheckout(p: P, jobId: string): Promise<CheckoutJob>;
  /** pending_payment → processing; idempotent. Runs inside the checkout's transaction. */
  markCheckoutPaid(p: P, jobId: string, opts: { paymentRef: string }): Promise<unknown>;
  /**
   * The kind's tables card refunds read: its job table, whose `payment_ref` names the checkout
   * a job ran on, and its outbox of card refunds to send (services/payments/card-refunds.ts
   * reads and marks its rows: job_id, kind, amount_cents, reason, processed_at,
   * provider_refund_id).
   */
  cardRefundTables: { jobs: string; outbox: string };
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
 * The shared services payments run on; `publicUrl` builds the checkout pages' links. A kind's
 * checkout hooks receive it too (inside a paid checkout's transaction), as the wider platform
 * `P` the kind asked for: composition passes the whole platform.
 */
export interface PaymentsPlatform extends CoreDeps {
  publicUrl: string;
  /** Payment outcomes are reported here (metrics listen). */
  events: KinoraEvents;
  /** Tells workers that a job became claimable (a paid checkout queues its job). */
  notifyJobs(): Promise<void>;
}

/** What the payment services need: the platform slice, the checkout provider, USDC. */
export interface PaymentsDeps<P extends PaymentsPlatform = PaymentsPlatform> {
  platform: P;
  checkout: CheckoutProvider;
  checkoutExpiryMinutes: number;
  /** The pay-per-job checkout of the kind that takes one (restore); absent: top-ups only. */
  restore: JobCheckoutHooks<P> | undefined;
  usdc: UsdcRuntime | undefined;
}

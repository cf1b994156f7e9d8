/** Table types of payments: card checkouts, provider events, test refunds, USDC in and out. */
import type { ColumnType } from "kysely";
import type { NullableTimestamp, Timestamp } from "./schema-columns.js";

/** A checkout's status: open until paid, expired or cancelled; held when the amount differs. */
export type CheckoutStatus = "open" | "paid" | "expired" | "cancelled" | "refunded" | "held";

/** checkouts: card checkouts for top-ups and restores paid by checkout. */
export interface CheckoutsTable {
  id: string;
  purpose: "topup" | "restore_job";
  wallet_id: string | null;
  job_id: string | null;
  amount_cents: number;
  email: string | null;
  provider: "stripe" | "test";
  provider_session_id: string | null;
  provider_payment_id: string | null;
  checkout_url: string | null;
  status: ColumnType<CheckoutStatus, CheckoutStatus | undefined, CheckoutStatus>;
  created_at: Timestamp;
  paid_at: NullableTimestamp;
  expires_at: Timestamp;
  /** What the provider says was paid, when it says so (a mismatch holds the checkout). */
  paid_amount_cents: ColumnType<number | null, number | null | undefined, number | null>;
  held_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** The console origin a top-up started from; its return pages link back there. */
  return_origin: ColumnType<string | null, string | null | undefined, string | null>;
}

/** payment_events: provider events acted on, once each. */
export interface PaymentEventsTable {
  provider: string;
  event_id: string;
  type: string;
  received_at: Timestamp;
}

/** test_checkout_refunds: refunds made by the built-in test checkout. */
export interface TestCheckoutRefundsTable {
  idempotency_key: string;
  id: string;
  provider_payment_id: string;
  amount_cents: number;
  reason: string;
  created_at: Timestamp;
}

export type UsdcPaymentStatus = "pending" | "confirmed" | "failed" | "unknown";

/** usdc_payments: USDC top-ups, from terms to credited. */
export interface UsdcPaymentsTable {
  id: string;
  wallet_id: string;
  payer: string;
  nonce: string;
  tx_hash: string | null;
  amount_cents: number;
  amount_atomic: string;
  valid_before: number;
  from_block: number | null;
  status: ColumnType<UsdcPaymentStatus, UsdcPaymentStatus | undefined, UsdcPaymentStatus>;
  detail: string | null;
  checks: ColumnType<number, number | undefined, number>;
  next_check_at: Timestamp;
  created_at: Timestamp;
  confirmed_at: NullableTimestamp;
}

export type UsdcRefundStatus = "sending" | "sent" | "failed" | "unknown";

/** usdc_refunds: USDC sent back by the operator. */
export interface UsdcRefundsTable {
  id: string;
  wallet_id: string;
  to_address: string;
  amount_cents: number;
  status: ColumnType<UsdcRefundStatus, UsdcRefundStatus | undefined, UsdcRefundStatus>;
  tx_hash: string | null;
  error: string | null;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
}

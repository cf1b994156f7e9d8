/**
 * Kysely types of the payment tables (migration 004-payments.sql). They are layered onto the
 * shared DB type with `withTables`, so the payments area owns its schema in one place.
 */
import type { ColumnType, Kysely } from "kysely";
import type { DB } from "../../db/schema.js";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

export type CheckoutStatus = "open" | "paid" | "expired" | "cancelled" | "refunded";

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
}

export interface PaymentEventsTable {
  provider: string;
  event_id: string;
  type: string;
  received_at: Timestamp;
}

export interface TestCheckoutRefundsTable {
  idempotency_key: string;
  id: string;
  provider_payment_id: string;
  amount_cents: number;
  reason: string;
  created_at: Timestamp;
}

export type UsdcPaymentStatus = "pending" | "confirmed" | "failed" | "unknown";

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

// A type alias, not an interface: withTables wants an index-signature-compatible record.
export type PaymentTables = {
  checkouts: CheckoutsTable;
  payment_events: PaymentEventsTable;
  test_checkout_refunds: TestCheckoutRefundsTable;
  usdc_payments: UsdcPaymentsTable;
  usdc_refunds: UsdcRefundsTable;
};

/** The shared handle (or transaction) with the payment tables typed. */
export function paymentsDb(db: Kysely<DB>) {
  return db.withTables<PaymentTables>();
}

export type PaymentsDb = ReturnType<typeof paymentsDb>;

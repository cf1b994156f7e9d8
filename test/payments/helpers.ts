/** Shared bits of the payments tests: the feature with its deps exposed, balance reads. */
import { sql } from "kysely";
import type { FeatureFactory } from "../../src/feature.js";
import { type PaymentsFeatureOptions, paymentsFeature } from "../../src/features/payments.js";
import type { PaymentsDeps } from "../../src/services/payments/deps.js";
import { createTestApp, type TestApp } from "../app.js";
import type { PaymentWorld } from "../chain/world.js";

export interface PaymentsTestApp extends TestApp {
  payments: PaymentsDeps;
  balance(walletId: string): Promise<number>;
  ledger(
    walletId: string,
  ): Promise<{ kind: string; amount_cents: number; reference: string | null }[]>;
}

export async function createPaymentsApp(
  env: Record<string, string> = {},
  options: PaymentsFeatureOptions = {},
  /** Features mounted before payments (e.g. restore, whose jobs checkouts pay for). */
  before: FeatureFactory[] = [],
): Promise<PaymentsTestApp> {
  let payments: PaymentsDeps | undefined;
  const t = await createTestApp({
    env,
    features: [
      ...before,
      paymentsFeature({
        ...options,
        onDeps: (d) => {
          payments = d;
        },
      }),
    ],
  });
  if (!payments) throw new Error("payments feature built no deps");
  const ready = payments;
  return {
    ...t,
    payments: ready,
    async balance(walletId) {
      const row = await t.platform.db
        .selectFrom("wallets")
        .select("balance_cents")
        .where("id", "=", walletId)
        .executeTakeFirstOrThrow();
      return Number(row.balance_cents);
    },
    async ledger(walletId) {
      const rows = await sql<{ kind: string; amount_cents: number; reference: string | null }>`
        SELECT kind, amount_cents, reference FROM ledger_entries WHERE wallet_id = ${walletId} ORDER BY id`.execute(
        t.platform.db,
      );
      return rows.rows.map((r) => ({ ...r, amount_cents: Number(r.amount_cents) }));
    },
  };
}

/** The X402_* environment that points the feature at an offline payment world. */
export function x402Env(w: PaymentWorld): Record<string, string> {
  return {
    X402_ENABLED: "true",
    X402_NETWORK: w.config.network,
    X402_CHAIN_ID: String(w.config.chainId),
    X402_ASSET: w.config.asset,
    X402_PAY_TO: w.config.payTo,
    X402_FACILITATOR_URL: w.config.facilitatorUrl,
    X402_RPC_URL: w.config.rpcUrl,
    X402_CONFIRMATIONS: "1",
    X402_FACILITATOR_TIMEOUT_MS: "3500",
    X402_EXPLORER_TX_URL: "http://explorer.test/tx/{tx}",
    X402_REFUND_PRIVATE_KEY: w.chain.operator.privateKey,
  };
}

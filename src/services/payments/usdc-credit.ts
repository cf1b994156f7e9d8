/** The one place a USDC payment turns into balance: confirmed + credited in one transaction. */
import { credit } from "../ledger.js";
import type { PaymentsDeps } from "./deps.js";

/**
 * Marks the payment confirmed and credits its wallet (reference = tx hash). Conditional on
 * the status, so the request path and any number of confirmers credit it exactly once.
 */
export async function creditConfirmedPayment(
  deps: PaymentsDeps,
  paymentId: string,
): Promise<boolean> {
  const credited = await deps.platform.db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable("usdc_payments")
      .set({ status: "confirmed", confirmed_at: deps.platform.clock(), detail: null })
      .where("id", "=", paymentId)
      .where("status", "in", ["pending", "unknown"])
      .where("tx_hash", "is not", null)
      .returningAll()
      .executeTakeFirst();
    if (!row?.tx_hash) return false;
    await credit(
      tx,
      {
        walletId: row.wallet_id,
        amountCents: row.amount_cents,
        kind: "topup",
        reference: row.tx_hash,
        reason: `USDC top-up from ${row.payer}`,
      },
      deps.platform.events,
    );
    return true;
  });
  if (credited) {
    deps.platform.log.info("usdc top-up credited", { payment_id: paymentId });
    deps.platform.events.paymentOutcome({ provider: "usdc", outcome: "credited" });
  }
  return credited;
}

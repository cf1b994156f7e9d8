/**
 * Sends the card refunds the restore area queues in restore_card_refunds when a
 * checkout-paid job fails: one provider refund per job (idempotency key = job id, so a
 * retry after a crash cannot refund twice), then the row is marked processed and the
 * checkout refunded, together.
 */
import { sql } from "kysely";
import { CheckoutProviderError } from "../../payments/checkout/provider.js";
import type { PaymentsDeps } from "./deps.js";
import { paymentsDb } from "./tables.js";

interface Queued {
  job_id: string;
  amount_cents: number;
  reason: string;
}

const BATCH = 20;

export async function processCardRefunds(deps: PaymentsDeps): Promise<number> {
  const { db, log } = deps.platform;
  const exists = await sql<{
    t: string | null;
  }>`SELECT to_regclass('restore_card_refunds')::text AS t`.execute(db);
  if (!exists.rows[0]?.t) return 0;
  const queued = await sql<Queued>`
    SELECT job_id, amount_cents, reason FROM restore_card_refunds
    WHERE processed_at IS NULL ORDER BY created_at LIMIT ${BATCH}`.execute(db);
  let sent = 0;
  for (const item of queued.rows) {
    try {
      if (await refundOne(deps, item)) sent += 1;
    } catch (err) {
      log.warn("card refund failed, will retry", { job_id: item.job_id, err });
    }
  }
  return sent;
}

async function refundOne(deps: PaymentsDeps, item: Queued): Promise<boolean> {
  const { platform } = deps;
  const checkout = await paymentsDb(platform.db)
    .selectFrom("checkouts")
    .selectAll()
    .where("job_id", "=", item.job_id)
    .where("status", "in", ["paid", "refunded"])
    .executeTakeFirst();
  let refundId: string;
  if (!checkout?.provider_payment_id) {
    platform.log.error("card refund queued for a job without a paid checkout", {
      job_id: item.job_id,
    });
    refundId = "none:no-paid-checkout";
  } else if (checkout.provider !== deps.checkout.kind) {
    platform.log.error("card refund needs the provider that took the payment; refund it by hand", {
      job_id: item.job_id,
      provider: checkout.provider,
    });
    refundId = `none:provider-${checkout.provider}-not-configured`;
  } else {
    refundId = await callProvider(
      deps,
      item,
      checkout.provider_payment_id,
      Number(checkout.amount_cents),
    );
  }
  await platform.db.transaction().execute(async (tx) => {
    await sql`UPDATE restore_card_refunds SET processed_at = ${platform.clock()}, provider_refund_id = ${refundId}
      WHERE job_id = ${item.job_id} AND processed_at IS NULL`.execute(tx);
    if (checkout) {
      await paymentsDb(tx)
        .updateTable("checkouts")
        .set({ status: "refunded" })
        .where("id", "=", checkout.id)
        .where("status", "=", "paid")
        .execute();
    }
  });
  platform.log.info("card refund processed", { job_id: item.job_id, refund_id: refundId });
  return !refundId.startsWith("none:");
}

async function callProvider(
  deps: PaymentsDeps,
  item: Queued,
  paymentId: string,
  paidCents: number,
) {
  try {
    const refund = await deps.checkout.refund({
      providerPaymentId: paymentId,
      amountCents: Math.min(Number(item.amount_cents), paidCents),
      reason: item.reason || "restore job failed",
      idempotencyKey: `refund-${item.job_id}`,
    });
    return refund.refundId;
  } catch (err) {
    if (err instanceof CheckoutProviderError && err.code === "charge_already_refunded") {
      return "none:already-refunded";
    }
    // Retryable failures propagate and are tried again on the next pass; a refusal is final.
    if (err instanceof CheckoutProviderError && !err.retryable) {
      deps.platform.log.error("card refund refused by the provider; refund it by hand", {
        job_id: item.job_id,
        err,
      });
      return `none:refused-${err.code ?? "unknown"}`;
    }
    throw err;
  }
}

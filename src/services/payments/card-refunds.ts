/**
 * Sends the card refunds the kind sold by checkout queues in its outbox (the tables its checkout
 * hooks name: restore's restore_card_refunds and restore_jobs): when a checkout-paid
 * job fails (kind refund: what is left of the price) and when its measured length priced lower
 * than paid (kind measured: the difference, a partial refund). One provider refund per job and
 * kind (idempotency key = kind and job id, so a retry after a crash cannot refund twice), then
 * the row is marked processed — and, after a failure's refund, the checkout refunded, together.
 */
import { type Selectable, sql } from "kysely";
import type { CheckoutsTable } from "../../db/schema-payments.js";
import { CheckoutProviderError } from "../../payments/checkout/provider.js";
import type { PaymentsDeps } from "./deps.js";

interface Queued {
  job_id: string;
  kind: "refund" | "measured";
  amount_cents: number;
  reason: string;
}

const BATCH = 20;

/** Sends the card refunds waiting in the outbox; the number sent. */
export async function processCardRefunds(deps: PaymentsDeps): Promise<number> {
  const { db, log } = deps.platform;
  // The outbox belongs to the kind sold by checkout: nothing to do where none is served.
  if (!deps.restore) return 0;
  const outbox = sql.table(deps.restore.cardRefundTables.outbox);
  const queued = await sql<Queued>`
    SELECT job_id, kind, amount_cents, reason FROM ${outbox}
    WHERE processed_at IS NULL ORDER BY created_at LIMIT ${BATCH}`.execute(db);
  let sent = 0;
  for (const item of queued.rows) {
    try {
      if (await refundOne(deps, deps.restore.cardRefundTables, item)) sent += 1;
    } catch (err) {
      log.warn("card refund failed, will retry", { job_id: item.job_id, err });
    }
  }
  return sent;
}

/** A paid job checkout is "extra" once the job started with another payment, after this long. */
const EXTRA_PAYMENT_GRACE_MS = 60_000;

/**
 * Refunds restore checkouts that were paid but did not pay for their job — a second session
 * paid for a job another payment had already started. The job's payment_ref names the
 * checkout it ran on; any other paid checkout of that job is refunded in full, once
 * (idempotency key = checkout id).
 */
export async function refundExtraPayments(deps: PaymentsDeps): Promise<number> {
  const { platform } = deps;
  if (!deps.restore) return 0;
  const jobs = sql.table(deps.restore.cardRefundTables.jobs);
  const cutoff = new Date(platform.clock().getTime() - EXTRA_PAYMENT_GRACE_MS);
  const extra = await sql<{
    id: string;
    job_id: string;
    amount_cents: number;
    provider_payment_id: string | null;
    provider: string;
  }>`
    SELECT c.id, c.job_id, c.amount_cents, c.provider_payment_id, c.provider
    FROM checkouts c JOIN ${jobs} j ON j.id = c.job_id
    WHERE c.purpose = 'restore_job' AND c.status = 'paid' AND c.paid_at < ${cutoff}
      AND j.payment_ref IS NOT NULL AND j.payment_ref <> c.id
    ORDER BY c.paid_at LIMIT ${BATCH}`.execute(platform.db);
  let sent = 0;
  for (const c of extra.rows) {
    if (!c.provider_payment_id || c.provider !== deps.checkout.kind) {
      platform.log.error("extra payment for a job cannot be refunded here; refund it by hand", {
        checkout_id: c.id,
        job_id: c.job_id,
      });
      continue;
    }
    try {
      await callProvider(
        deps,
        {
          job_id: c.job_id,
          kind: "refund",
          amount_cents: Number(c.amount_cents),
          reason: "job was already paid",
        },
        c.provider_payment_id,
        Number(c.amount_cents),
        `refund-${c.id}`,
      );
      await platform.db
        .updateTable("checkouts")
        .set({ status: "refunded" })
        .where("id", "=", c.id)
        .where("status", "=", "paid")
        .execute();
      platform.log.warn("extra payment for a job refunded", {
        checkout_id: c.id,
        job_id: c.job_id,
      });
      sent += 1;
    } catch (err) {
      platform.log.warn("extra payment refund failed, will retry", { checkout_id: c.id, err });
    }
  }
  return sent;
}

async function refundOne(
  deps: PaymentsDeps,
  tables: { jobs: string; outbox: string },
  item: Queued,
): Promise<boolean> {
  const { platform } = deps;
  // The checkout the job ran on (its payment_ref): a job paid twice has another, refunded as
  // an extra payment, which must not stand in for this one.
  const ranOn = await sql<Selectable<CheckoutsTable>>`
    SELECT c.* FROM checkouts c JOIN ${sql.table(tables.jobs)} j ON j.payment_ref = c.id
    WHERE j.id = ${item.job_id} AND c.status IN ('paid', 'refunded')`.execute(platform.db);
  const checkout = ranOn.rows[0];
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
      // Never more than was captured (a held payment released short of the price).
      Number(checkout.paid_amount_cents ?? checkout.amount_cents),
      // The failure's refund keeps its key from before measured refunds existed.
      item.kind === "refund" ? `refund-${item.job_id}` : `${item.kind}-refund-${item.job_id}`,
    );
  }
  await platform.db.transaction().execute(async (tx) => {
    await sql`UPDATE ${sql.table(tables.outbox)} SET processed_at = ${platform.clock()}, provider_refund_id = ${refundId}
      WHERE job_id = ${item.job_id} AND kind = ${item.kind} AND processed_at IS NULL`.execute(tx);
    // A measured difference is a partial refund: the checkout stays paid.
    if (checkout && item.kind === "refund") {
      await tx
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
  idempotencyKey = `refund-${item.job_id}`,
) {
  try {
    const refund = await deps.checkout.refund({
      providerPaymentId: paymentId,
      amountCents: Math.min(Number(item.amount_cents), paidCents),
      reason: item.reason || "restore job failed",
      idempotencyKey,
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

/**
 * Card checkouts: open one for a top-up or a pay-per-job restore, complete it exactly once
 * (from a Stripe webhook or the built-in test page — the same code path), cancel and expire.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import type { CheckoutStatus, CheckoutsTable, DB } from "../../db/schema.js";
import { ApiError, notFound, wrongState } from "../../domain/errors.js";
import { displayCents } from "../../domain/money.js";
import { CheckoutProviderError } from "../../payments/checkout/provider.js";
import { credit } from "../ledger.js";
import type { PaymentsDeps, PaymentsPlatform } from "./deps.js";

/** A row of the checkouts table. */
export type CheckoutRow = Selectable<CheckoutsTable>;

/** An open link is handed out again only if the payer still has this long to pay. */
const REUSE_MARGIN_MS = 10 * 60_000;

interface OpenedCheckout {
  checkout_url: string;
  checkout_id: string;
  amount_cents: number;
  display: string;
  expires_at: string;
}

interface OpenInput {
  purpose: "topup" | "restore_job";
  walletId?: string;
  jobId?: string;
  amountCents: number;
  email?: string | null;
  description: string;
  returnOrigin?: string | null;
}

/** Pages kinora serves for every checkout; also Stripe's success_url and cancel_url. */
function checkoutPages(publicUrl: string, id: string) {
  const base = `${publicUrl}/checkout/${encodeURIComponent(id)}`;
  return { page: base, done: `${base}/done`, cancelled: `${base}/cancelled` };
}

/** Records the checkout first (so a webhook can always find it), then opens the provider session. */
async function openCheckout(deps: PaymentsDeps, input: OpenInput): Promise<OpenedCheckout> {
  const { platform, checkout: provider } = deps;
  const db = platform.db;
  const id = platform.ids("co");
  const now = platform.clock();
  const expiresAt = new Date(now.getTime() + deps.checkoutExpiryMinutes * 60_000);
  await db
    .insertInto("checkouts")
    .values({
      id,
      purpose: input.purpose,
      wallet_id: input.walletId ?? null,
      job_id: input.jobId ?? null,
      amount_cents: input.amountCents,
      email: input.email ?? null,
      return_origin: input.returnOrigin ?? null,
      provider: provider.kind,
      created_at: now,
      expires_at: expiresAt,
    })
    .execute();
  const pages = checkoutPages(platform.publicUrl, id);
  let session: Awaited<ReturnType<typeof provider.createSession>>;
  try {
    session = await provider.createSession({
      reference: id,
      amountCents: input.amountCents,
      currency: "usd",
      description: input.description,
      ...(input.email ? { email: input.email } : {}),
      successUrl: pages.done,
      cancelUrl: pages.cancelled,
      metadata: input.walletId ? { wallet_id: input.walletId } : { job_id: input.jobId ?? "" },
      expiresAt,
      idempotencyKey: `checkout-${id}`,
    });
  } catch (err) {
    await db.updateTable("checkouts").set({ status: "cancelled" }).where("id", "=", id).execute();
    if (err instanceof CheckoutProviderError) {
      platform.log.error("checkout provider refused a session", { checkout_id: id, err });
      throw new ApiError(
        err.retryable ? "unavailable" : "upstream_failed",
        "The card payment provider could not open a checkout right now; nothing was charged, try again shortly.",
      );
    }
    throw err;
  }
  const finalExpiry = session.expiresAt ?? expiresAt;
  await db
    .updateTable("checkouts")
    .set({
      provider_session_id: session.providerSessionId,
      checkout_url: session.url,
      expires_at: finalExpiry,
    })
    .where("id", "=", id)
    .execute();
  platform.log.info("checkout opened", { checkout_id: id, purpose: input.purpose });
  return {
    checkout_url: session.url,
    checkout_id: id,
    amount_cents: input.amountCents,
    display: displayCents(input.amountCents),
    expires_at: finalExpiry.toISOString(),
  };
}

/** A top-up checkout link for a wallet (an open one for the same amount is handed out again). */
export async function openTopupCheckout(
  deps: PaymentsDeps,
  input: {
    walletId: string;
    amountCents: number;
    email?: string | null;
    /** The console's origin when the owner started it there (see consoleReturnOrigin). */
    returnOrigin?: string | null;
  },
): Promise<OpenedCheckout> {
  return openCheckout(deps, {
    purpose: "topup",
    walletId: input.walletId,
    amountCents: input.amountCents,
    email: input.email ?? null,
    returnOrigin: input.returnOrigin ?? null,
    description: `kinora balance top-up (${displayCents(input.amountCents)})`,
  });
}

/** POST /cloud/jobs/{id}/checkout: one open checkout per job is reused until it expires. */
export async function openRestoreCheckout(deps: PaymentsDeps, jobId: string) {
  const hooks = deps.restore;
  if (!hooks) throw notFound("Restore job");
  const job = await hooks.getJobForCheckout(deps.platform, jobId);
  if (job.status !== "pending_payment") {
    throw wrongState(
      `This job is ${job.status}, not waiting for payment; only a job in pending_payment can be paid by checkout.`,
    );
  }
  if (!job.uploaded) {
    throw (
      job.uploadProblem ??
      new ApiError(
        "not_uploaded",
        "Upload the file first (HTTP PUT to the job's upload_url), then ask for the checkout link.",
      )
    );
  }
  const db = deps.platform.db;
  const existing = await db
    .selectFrom("checkouts")
    .selectAll()
    .where("job_id", "=", jobId)
    .where("status", "=", "open")
    .where("expires_at", ">", new Date(deps.platform.clock().getTime() + REUSE_MARGIN_MS))
    .orderBy("created_at", "desc")
    .executeTakeFirst();
  // One open link per job: asking again returns it, so a customer is not handed two sessions
  // that could both be paid (should it happen anyway, the extra payment is refunded).
  if (existing?.checkout_url && existing.provider === deps.checkout.kind) {
    return { checkout_url: existing.checkout_url, checkout_id: existing.id, job };
  }
  const opened = await openCheckout(deps, {
    purpose: "restore_job",
    jobId,
    amountCents: job.amountCents,
    email: job.email,
    description: job.description ?? `kinora cloud restore (${job.display})`,
  });
  return { checkout_url: opened.checkout_url, checkout_id: opened.checkout_id, job };
}

interface CompleteInput {
  providerPaymentId?: string;
  /** Statuses a payment may arrive in. Stripe's paid event wins over our own expiry. */
  from?: CheckoutStatus[];
  amountCents?: number;
}

/**
 * Marks the checkout paid and credits the wallet (reference = checkout id) or starts the
 * restore job — in one transaction, conditional on the status, so a second delivery, a
 * double click or a concurrent webhook does nothing. Runs in `tx` when given (the webhook's
 * event-dedupe transaction).
 */
export async function completeCheckout(
  deps: PaymentsDeps,
  checkoutId: string,
  input: CompleteInput = {},
  tx?: Kysely<DB>,
): Promise<{ applied: boolean; checkout: CheckoutRow | undefined; wakeWorkers: boolean }> {
  const run = async (t: Kysely<DB>) => {
    const db = t;
    const now = deps.platform.clock();
    const paid = input.amountCents;
    // A payment of another amount than the checkout's is held for the operator, not applied.
    const status =
      paid === undefined
        ? sql<CheckoutStatus>`'paid'`
        : sql<CheckoutStatus>`CASE WHEN amount_cents = ${paid} THEN 'paid' ELSE 'held' END`;
    const row = await db
      .updateTable("checkouts")
      .set({
        status,
        paid_at: now,
        paid_amount_cents: paid ?? null,
        held_reason:
          paid === undefined
            ? null
            : sql<
                string | null
              >`CASE WHEN amount_cents = ${paid} THEN NULL ELSE ${`the provider reported ${paid} cents paid`} END`,
        ...(input.providerPaymentId ? { provider_payment_id: input.providerPaymentId } : {}),
      })
      .where("id", "=", checkoutId)
      .where("status", "in", input.from ?? ["open"])
      .returningAll()
      .executeTakeFirst();
    if (!row) {
      const current = await db
        .selectFrom("checkouts")
        .selectAll()
        .where("id", "=", checkoutId)
        .executeTakeFirst();
      return { applied: false, checkout: current };
    }
    if (row.status === "held") {
      deps.platform.log.warn("checkout paid with an unexpected amount: held for the operator", {
        checkout_id: checkoutId,
        expected_cents: row.amount_cents,
        paid_cents: input.amountCents,
      });
      return { applied: false, checkout: row, held: true };
    }
    await applyPayment(deps, t, row, wake);
    return { applied: true, checkout: row };
  };
  const wake = { needed: false };
  const result = tx ? await run(tx) : await deps.platform.db.transaction().execute(run);
  // With an outer transaction (the webhook's) the caller wakes the workers after its commit.
  if (wake.needed && !tx) await deps.platform.notifyJobs();
  const provider = result.checkout?.provider ?? "unknown";
  if (result.applied) {
    const outcome = result.checkout?.purpose === "topup" ? "credited" : "paid";
    deps.platform.events.paymentOutcome({ provider, outcome });
  } else if ("held" in result) {
    deps.platform.events.paymentOutcome({ provider, outcome: "held" });
  }
  if (result.applied) {
    deps.platform.log.info("checkout paid", {
      checkout_id: checkoutId,
      purpose: result.checkout?.purpose,
    });
  }
  return { applied: result.applied, checkout: result.checkout, wakeWorkers: wake.needed };
}

async function applyPayment(
  deps: PaymentsDeps,
  tx: Kysely<DB>,
  row: CheckoutRow,
  wake: { needed: boolean },
) {
  if (row.purpose === "topup" && row.wallet_id) {
    await credit(
      tx,
      {
        walletId: row.wallet_id,
        amountCents: row.amount_cents,
        kind: "topup",
        reference: row.id,
        reason: `card top-up (${row.provider} checkout)`,
      },
      deps.platform.events,
    );
    return;
  }
  if (row.purpose === "restore_job" && row.job_id) {
    if (!deps.restore) throw new Error("a restore checkout was paid but restore is not enabled");
    // Inside the transaction; the wake-up is sent after commit (on PGlite, a query outside
    // the open transaction would wait for it forever).
    const inTx: PaymentsPlatform = Object.create(deps.platform, {
      db: { value: tx },
      notifyJobs: {
        value: async () => {
          wake.needed = true;
        },
      },
    });
    await deps.restore.markCheckoutPaid(inTx, row.job_id, { paymentRef: row.id });
  }
}

/** The payer left the page: an open checkout becomes cancelled (idempotent). */
export async function cancelCheckout(deps: PaymentsDeps, checkoutId: string) {
  await deps.platform.db
    .updateTable("checkouts")
    .set({ status: "cancelled" })
    .where("id", "=", checkoutId)
    .where("status", "=", "open")
    .execute();
  return findCheckout(deps, checkoutId);
}

/** One checkout by id. */
export async function findCheckout(deps: PaymentsDeps, checkoutId: string) {
  return deps.platform.db
    .selectFrom("checkouts")
    .selectAll()
    .where("id", "=", checkoutId)
    .executeTakeFirst();
}

/** Open checkouts past their expiry become expired; returns how many. */
export async function expireCheckouts(deps: PaymentsDeps): Promise<number> {
  const rows = await deps.platform.db
    .updateTable("checkouts")
    .set({ status: "expired" })
    .where("status", "=", "open")
    .where("expires_at", "<=", deps.platform.clock())
    .returning(["id", "provider"])
    .execute();
  for (const row of rows) {
    deps.platform.events.paymentOutcome({ provider: row.provider, outcome: "expired" });
  }
  return rows.length;
}

/** Checkouts held because the provider reported another amount than asked; newest first. */
export async function listHeldCheckouts(deps: PaymentsDeps) {
  const rows = await deps.platform.db
    .selectFrom("checkouts")
    .selectAll()
    .where("status", "=", "held")
    .orderBy("paid_at", "desc")
    .limit(200)
    .execute();
  return rows.map(heldView);
}

function heldView(row: CheckoutRow) {
  return {
    checkout_id: row.id,
    purpose: row.purpose,
    wallet_id: row.wallet_id,
    job_id: row.job_id,
    provider: row.provider,
    provider_payment_id: row.provider_payment_id,
    amount_cents: row.amount_cents,
    paid_amount_cents: row.paid_amount_cents,
    held_reason: row.held_reason,
    paid_at: row.paid_at ? new Date(row.paid_at).toISOString() : null,
    status: row.status,
  };
}

/**
 * The operator's decision on a held payment: apply it after all. A top-up credits
 * `amountCents` (default: what the provider says was paid); a restore job is started. Only a
 * held checkout can be released, once.
 */
export async function releaseHeldCheckout(
  deps: PaymentsDeps,
  checkoutId: string,
  amountCents?: number,
) {
  const wake = { needed: false };
  const released = await deps.platform.db.transaction().execute(async (t) => {
    const row = await t
      .updateTable("checkouts")
      .set({ status: "paid" })
      .where("id", "=", checkoutId)
      .where("status", "=", "held")
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    const credited = amountCents ?? Number(row.paid_amount_cents ?? row.amount_cents);
    await applyPayment(deps, t, { ...row, amount_cents: credited }, wake);
    return row;
  });
  if (!released) {
    const current = await findCheckout(deps, checkoutId);
    if (!current) throw notFound("Checkout");
    throw wrongState(`This checkout is ${current.status}; only a held checkout can be released.`);
  }
  if (wake.needed) await deps.platform.notifyJobs();
  deps.platform.events.paymentOutcome({ provider: released.provider, outcome: "released" });
  deps.platform.log.info("held checkout released", { checkout_id: checkoutId });
  return heldView({ ...released, status: "paid" });
}

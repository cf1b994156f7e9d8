/**
 * Acting on a verified Stripe event: the event id is stored under a unique key in the same
 * transaction as its effect, so redeliveries are no-ops, and every effect is conditional on
 * the checkout's status, so out-of-order events (expired after paid, completed-unpaid after
 * async-succeeded) cannot undo or repeat a payment.
 */
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { PaidEvent } from "../../payments/checkout/provider.js";
import { completeCheckout } from "./checkouts.js";
import type { PaymentsDeps } from "./deps.js";

type EventOutcome = "duplicate" | "credited" | "held" | "already_paid" | "expired" | "ignored";

/** Acts on a verified provider event once: credits, expires, refunds. */
export async function handleStripeEvent(
  deps: PaymentsDeps,
  event: PaidEvent,
): Promise<EventOutcome> {
  const { platform } = deps;
  let wake = false;
  const outcome = await platform.db.transaction().execute(async (tx) => {
    const db = tx;
    const inserted = await db
      .insertInto("payment_events")
      .values({
        provider: "stripe",
        event_id: event.eventId,
        type: event.type,
        received_at: platform.clock(),
      })
      .onConflict((oc) => oc.columns(["provider", "event_id"]).doNothing())
      .returning("event_id")
      .executeTakeFirst();
    if (!inserted) return "duplicate" as const;
    const checkout = await findEventCheckout(deps, event, tx);
    if (!checkout) return "ignored" as const;
    if (event.type === "checkout.completed" && event.paid) {
      // Money was taken: a paid event wins over our own expiry or a cancel on the return page.
      const done = await completeCheckout(
        deps,
        checkout.id,
        {
          providerPaymentId: event.providerPaymentId,
          from: ["open", "expired", "cancelled"],
          amountCents: event.amountCents,
        },
        tx,
      );
      wake = done.wakeWorkers;
      if (done.applied) return "credited" as const;
      return done.checkout?.status === "held" && !done.applied
        ? ("held" as const)
        : ("already_paid" as const);
    }
    if (event.type === "checkout.expired") {
      await db
        .updateTable("checkouts")
        .set({ status: "expired" })
        .where("id", "=", checkout.id)
        .where("status", "=", "open")
        .execute();
      return "expired" as const;
    }
    return "ignored" as const;
  });
  if (wake) await platform.notifyJobs();
  platform.log.info("stripe event", { event_id: event.eventId, type: event.type, outcome });
  return outcome;
}

async function findEventCheckout(deps: PaymentsDeps, event: PaidEvent, tx: Kysely<DB>) {
  if (!event.reference?.startsWith("co_")) return undefined;
  const row = await tx
    .selectFrom("checkouts")
    .selectAll()
    .where("id", "=", event.reference)
    .where("provider", "=", "stripe")
    .executeTakeFirst();
  // The session id must agree when we recorded one: a reference alone is not proof.
  if (row?.provider_session_id && event.providerSessionId) {
    if (row.provider_session_id !== event.providerSessionId) {
      deps.platform.log.warn("stripe event session does not match the checkout", {
        checkout_id: row.id,
        event_id: event.eventId,
      });
      return undefined;
    }
  }
  return row;
}

/**
 * The wallet's own events, written through the same outbox in the transaction of the change
 * that causes them:
 * - `wallet.credited`: money arrived (a top-up by card or USDC, an operator's credit); the data
 *   is the credit and the balance after it.
 * - `key.limit_reached`: an agent key can no longer buy what it was asked to. Sent when a charge
 *   leaves the key less than the smallest price kinora has (it can buy nothing more), or when a
 *   charge is refused over the key's limit (recorded right after the refused request rolled
 *   back: a refusal changes nothing else). At most once per key, limit and spent amount, so a
 *   script retrying a refused purchase does not flood the owner.
 */

import { ApiError } from "../../domain/errors.js";
import type { Db } from "../../jobs/definition.js";
import { enqueueWebhookEvent } from "../../jobs/webhook-outbox.js";

export async function walletCredited(
  db: Db,
  credit: { walletId: string; amountCents: number; kind: string; balanceCents: number },
  now: Date,
): Promise<void> {
  if (credit.amountCents <= 0) return;
  await enqueueWebhookEvent(
    db,
    {
      walletId: credit.walletId,
      type: "wallet.credited",
      data: {
        wallet_id: credit.walletId,
        amount_cents: credit.amountCents,
        kind: credit.kind,
        balance_cents: credit.balanceCents,
      },
    },
    now,
  );
}

type LimitReason = "below_smallest_price" | "refused_over_limit";

async function limitReached(
  db: Db,
  key: { walletId: string; agentKeyId: string },
  reason: LimitReason,
  now: Date,
  priceCents?: number,
): Promise<void> {
  const row = await db
    .selectFrom("agent_keys")
    .select(["label", "limit_cents", "spent_cents"])
    .where("id", "=", key.agentKeyId)
    .executeTakeFirst();
  if (!row) return;
  const limit = Number(row.limit_cents);
  const spent = Number(row.spent_cents);
  await enqueueWebhookEvent(
    db,
    {
      walletId: key.walletId,
      type: "key.limit_reached",
      data: {
        wallet_id: key.walletId,
        agent_key_id: key.agentKeyId,
        label: row.label,
        limit_cents: limit,
        spent_cents: spent,
        remaining_cents: limit - spent,
        reason,
        ...(priceCents === undefined ? {} : { price_cents: priceCents }),
      },
      dedupeKey: `key.limit_reached:${key.agentKeyId}:${limit}:${spent}`,
    },
    now,
  );
}

/**
 * After a successful charge by an agent key: did it leave less than `smallestCents`, the least
 * anything costs on this server (undefined: unknown, nothing is sent)?
 */
export async function keyCharged(
  db: Db,
  charge: { walletId: string; agentKeyId: string; before: number; after: number },
  smallestCents: number | undefined,
  now: Date,
): Promise<void> {
  if (smallestCents === undefined) return;
  if (charge.before >= smallestCents && charge.after < smallestCents) {
    await limitReached(db, charge, "below_smallest_price", now);
  }
}

/** After a charge refused over the key's limit (outside the refused transaction). */
export async function keyRefusedOverLimit(
  db: Db,
  charge: { walletId: string; agentKeyId: string; amountCents: number },
  now: Date,
): Promise<void> {
  await limitReached(db, charge, "refused_over_limit", now, charge.amountCents);
}

/**
 * Call with what a create's transaction threw after it rolled back: a charge refused over an
 * agent key's limit is recorded as `key.limit_reached`; anything else is left alone.
 */
export async function noteRefusedCharge(
  db: Db,
  charge: { walletId: string; agentKeyId: string | null; amountCents: number },
  err: unknown,
): Promise<void> {
  if (charge.agentKeyId === null || !(err instanceof ApiError) || err.code !== "over_limit") return;
  await keyRefusedOverLimit(db, { ...charge, agentKeyId: charge.agentKeyId }, new Date());
}

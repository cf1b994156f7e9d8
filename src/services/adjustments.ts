/**
 * Operator adjustments: credit (or debit) a wallet with a reason, as an `adjustment` ledger
 * entry. A reference makes the adjustment idempotent the way Idempotency-Key is: the same
 * reference with the same wallet and amount applies nothing a second time; with another
 * wallet or amount it is a 409 (a reused reference is a mistake, never a silent no-op).
 */
import { conflict, notFound } from "../domain/errors.js";
import type { CoreDeps } from "./deps.js";
import { credit } from "./ledger.js";

interface AdjustmentInput {
  walletId: string;
  amountCents: number;
  reason: string;
  reference?: string | undefined;
}

interface AdjustmentResult {
  wallet_id: string;
  applied: boolean;
  balance_cents: number;
}

/**
 * An operator's credit or debit: one adjustment ledger entry with its reason (a debit never goes
 * below zero).
 */
export async function adjustBalance(
  deps: CoreDeps,
  input: AdjustmentInput,
): Promise<AdjustmentResult> {
  const reference = input.reference ?? deps.ids("adj");
  const result = await credit(
    deps.db,
    {
      walletId: input.walletId,
      amountCents: input.amountCents,
      kind: "adjustment",
      reference,
      reason: `operator: ${input.reason}`,
    },
    deps.events,
  );
  if (result.balanceCents === null) throw notFound("Wallet");
  if (!result.credited) {
    const prior = input.reference
      ? await deps.db
          .selectFrom("ledger_entries")
          .select(["wallet_id", "amount_cents"])
          .where("kind", "=", "adjustment")
          .where("reference", "=", input.reference)
          .executeTakeFirst()
      : undefined;
    if (!prior) {
      throw conflict(
        `The balance (${result.balanceCents} cents) is smaller than the debit; debit at most the balance.`,
      );
    }
    if (prior.wallet_id !== input.walletId || prior.amount_cents !== input.amountCents) {
      throw conflict(
        `reference: ${input.reference} was already used for ${prior.amount_cents} cents on ${prior.wallet_id}; use a new reference for a new adjustment.`,
      );
    }
  }
  deps.log.info("operator adjustment", {
    wallet_id: input.walletId,
    amount_cents: input.amountCents,
    applied: result.credited,
  });
  return {
    wallet_id: input.walletId,
    applied: result.credited,
    balance_cents: result.balanceCents,
  };
}

/**
 * Operator refunds of unused USDC-funded balance, sent back in USDC to the paying address
 * (the payer of the wallet's most recent confirmed USDC payment). The wallet is debited with
 * a `payout` ledger entry (reference = refund id) before anything is sent; a send that
 * certainly did not happen is re-credited with a correcting `adjustment` entry. A send whose
 * outcome is unknown (broadcast, receipt not seen) stays debited and is marked `unknown` for
 * the operator to check on the explorer — never re-credited, so USDC is never paid twice.
 */

import { sql } from "kysely";
import type { UsdcRefundView } from "../../api/payments.js";
import { ApiError, conflict, notFound } from "../../domain/errors.js";
import { displayCents } from "../../domain/money.js";
import { explorerUrl } from "../../payments/x402/config.js";
import { sendUsdcRefund } from "../../payments/x402/refund.js";
import { centsToAtomic } from "../../payments/x402/terms.js";
import { credit } from "../ledger.js";
import type { PaymentsDeps, UsdcRuntime } from "./deps.js";
import { storedHex } from "./stored-hex.js";

interface Reserved {
  id: string;
  to: string;
  amountCents: number;
}

export async function refundUsdc(
  deps: PaymentsDeps,
  input: { walletId: string; amountCents?: number; sendTimeoutMs?: number },
): Promise<UsdcRefundView> {
  const usdc = deps.usdc;
  const key = usdc?.config.refundPrivateKey;
  if (!usdc || !key) {
    throw new ApiError(
      "unavailable",
      "USDC refunds are not switched on: set X402_ENABLED and X402_REFUND_PRIVATE_KEY (an operator wallet holding USDC and gas).",
    );
  }
  const reserved = await reserve(deps, input.walletId, input.amountCents);
  const db = deps.platform.db;
  let broadcast = false;
  try {
    await sendUsdcRefund({
      rpcUrl: usdc.config.rpcUrl,
      chainId: usdc.config.chainId,
      asset: usdc.config.asset,
      privateKey: key,
      to: storedHex(reserved.to, "refund reservation's address"),
      amountAtomic: centsToAtomic(reserved.amountCents),
      timeoutMs: input.sendTimeoutMs,
      client: usdc.rpc,
      onBroadcast: async (txHash) => {
        broadcast = true;
        await db
          .updateTable("usdc_refunds")
          .set({ tx_hash: txHash })
          .where("id", "=", reserved.id)
          .execute();
      },
    });
    await db
      .updateTable("usdc_refunds")
      .set({ status: "sent", sent_at: deps.platform.clock() })
      .where("id", "=", reserved.id)
      .execute();
    deps.platform.log.info("usdc refund sent", {
      refund_id: reserved.id,
      wallet_id: input.walletId,
    });
  } catch (err) {
    await sendFailed(deps, input.walletId, reserved, err, broadcast);
  }
  return refundView(deps, usdc, reserved.id);
}

/** Locks the wallet, checks what may be refunded, debits it and records the refund. */
async function reserve(
  deps: PaymentsDeps,
  walletId: string,
  requested?: number,
): Promise<Reserved> {
  return deps.platform.db.transaction().execute(async (tx) => {
    const wallet = await sql<{ balance_cents: number }>`
      SELECT balance_cents FROM wallets WHERE id = ${walletId} FOR UPDATE`.execute(tx);
    const balance = wallet.rows[0]?.balance_cents;
    if (balance === undefined) throw notFound("Wallet");
    const db = tx;
    const sums = await sql<{ paid: number | null; refunded: number | null }>`
      SELECT (SELECT SUM(amount_cents) FROM usdc_payments WHERE wallet_id = ${walletId} AND status = 'confirmed') AS paid,
             (SELECT SUM(amount_cents) FROM usdc_refunds WHERE wallet_id = ${walletId} AND status <> 'failed') AS refunded
    `.execute(tx);
    const refundable = Number(sums.rows[0]?.paid ?? 0) - Number(sums.rows[0]?.refunded ?? 0);
    const latest = await db
      .selectFrom("usdc_payments")
      .select("payer")
      .where("wallet_id", "=", walletId)
      .where("status", "=", "confirmed")
      .orderBy("confirmed_at", "desc")
      .orderBy("id", "desc")
      .executeTakeFirst();
    if (!latest || refundable <= 0) {
      throw conflict("This wallet has no USDC-funded balance left to refund.");
    }
    const amount = requested ?? Math.min(refundable, balance);
    if (amount <= 0) throw conflict("The wallet's balance is 0; there is nothing to refund.");
    if (amount > refundable) {
      throw conflict(
        `At most ${displayCents(refundable)} can be refunded in USDC (paid in USDC minus already refunded); ask for less.`,
      );
    }
    if (amount > balance) {
      throw conflict(
        `The balance (${displayCents(balance)}) is smaller than the refund; refund at most the balance.`,
      );
    }
    const id = deps.platform.ids("ur");
    await sql`
      WITH wu AS (
        UPDATE wallets SET balance_cents = balance_cents - ${amount} WHERE id = ${walletId} RETURNING id
      )
      INSERT INTO ledger_entries (wallet_id, kind, amount_cents, reference, reason)
      SELECT ${walletId}, 'payout', ${-amount}, ${id}, ${`USDC refund to ${latest.payer}`} FROM wu
    `.execute(tx);
    await db
      .insertInto("usdc_refunds")
      .values({
        id,
        wallet_id: walletId,
        to_address: latest.payer,
        amount_cents: amount,
        created_at: deps.platform.clock(),
      })
      .execute();
    deps.platform.events.ledgerEntry({ kind: "payout", amountCents: -amount });
    return { id, to: latest.payer, amountCents: amount };
  });
}

async function sendFailed(
  deps: PaymentsDeps,
  walletId: string,
  r: Reserved,
  err: unknown,
  broadcast: boolean,
) {
  const message = err instanceof Error ? (err.message.split("\n")[0] ?? err.name) : String(err);
  const reverted = /reverted/i.test(message);
  const db = deps.platform.db;
  if (broadcast && !reverted) {
    await db
      .updateTable("usdc_refunds")
      .set({ status: "unknown", error: message })
      .where("id", "=", r.id)
      .execute();
    deps.platform.log.error("usdc refund outcome unknown: check the transaction", {
      refund_id: r.id,
      err,
    });
    return;
  }
  await deps.platform.db.transaction().execute(async (tx) => {
    await tx
      .updateTable("usdc_refunds")
      .set({ status: "failed", error: message })
      .where("id", "=", r.id)
      .execute();
    await credit(
      tx,
      {
        walletId,
        amountCents: r.amountCents,
        kind: "adjustment",
        reference: `${r.id}:reversal`,
        reason: `USDC refund ${r.id} failed; amount returned to the balance`,
      },
      deps.platform.events,
    );
  });
  deps.platform.log.error("usdc refund failed; balance re-credited", { refund_id: r.id, err });
}

async function refundView(
  deps: PaymentsDeps,
  usdc: UsdcRuntime,
  id: string,
): Promise<UsdcRefundView> {
  const row = await deps.platform.db
    .selectFrom("usdc_refunds")
    .innerJoin("wallets", "wallets.id", "usdc_refunds.wallet_id")
    .selectAll("usdc_refunds")
    .select("wallets.balance_cents")
    .where("usdc_refunds.id", "=", id)
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    wallet_id: row.wallet_id,
    to: row.to_address,
    amount_cents: row.amount_cents,
    status: row.status,
    transaction: row.tx_hash,
    explorer: row.tx_hash ? explorerUrl(usdc.config, row.tx_hash) : null,
    error: row.error,
    balance_cents: row.balance_cents,
  };
}

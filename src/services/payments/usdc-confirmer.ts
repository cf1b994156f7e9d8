/**
 * The background confirmer: payments answered 202 (pending on chain, or settlement outcome
 * unknown) are looked up on our own RPC until they confirm (credit once), fail, or — for an
 * unknown outcome whose authorization expired unused — are known never to have happened.
 * All state is in usdc_payments, so it resumes after a restart and any node may run it.
 */
import type { Selectable } from "kysely";
import type { UsdcPaymentsTable } from "../../db/schema.js";
import { confirmTransfer, findAuthorizationUse, rpcClient } from "../../payments/x402/confirm.js";
import type { PaymentsDeps, UsdcRuntime } from "./deps.js";
import { storedHex } from "./stored-hex.js";
import { creditConfirmedPayment } from "./usdc-credit.js";

type Row = Selectable<UsdcPaymentsTable>;

const BATCH = 25;
const MAX_BACKOFF_MS = 60_000;
/** Blocks searched back for an AuthorizationUsed event when the claim's block is unknown. */
const FALLBACK_LOOKBACK_BLOCKS = 20_000n;

interface ConfirmerReport {
  checked: number;
  credited: number;
  failed: number;
}

/** Credits USDC payments the chain has confirmed since they were settled. */
export async function confirmUsdcPayments(deps: PaymentsDeps): Promise<ConfirmerReport> {
  const report: ConfirmerReport = { checked: 0, credited: 0, failed: 0 };
  const usdc = deps.usdc;
  if (!usdc) return report;
  const rows = await deps.platform.db
    .selectFrom("usdc_payments")
    .selectAll()
    .where("status", "in", ["pending", "unknown"])
    .where("next_check_at", "<=", deps.platform.clock())
    .orderBy("next_check_at")
    .limit(BATCH)
    .execute();
  for (const row of rows) {
    report.checked += 1;
    try {
      const verdict = await checkOne(deps, usdc, row);
      if (verdict === "credited") report.credited += 1;
      if (verdict === "failed") report.failed += 1;
      if (verdict === "later") await later(deps, row);
    } catch (err) {
      deps.platform.log.warn("usdc confirmer: check failed, will retry", {
        payment_id: row.id,
        err,
      });
      await later(deps, row);
    }
  }
  return report;
}

async function checkOne(deps: PaymentsDeps, usdc: UsdcRuntime, row: Row) {
  let txHash = row.tx_hash === null ? null : storedHex(row.tx_hash, "usdc_payments.tx_hash");
  if (!txHash) {
    const found = await reconcileUnknown(deps, usdc, row);
    if (found === "failed" || found === "later") return found;
    txHash = found;
  }
  const result = await confirmTransfer({
    ...usdc.config,
    txHash,
    payer: storedHex(row.payer, "usdc_payments.payer"),
    amountAtomic: row.amount_atomic,
    client: usdc.rpc,
  });
  if (result.status === "pending") return "later" as const;
  if (result.status === "failed") return markFailed(deps, row, result.reason);
  return (await creditConfirmedPayment(deps, row.id)) ? ("credited" as const) : ("done" as const);
}

/** Settlement outcome unknown and no hash: ask the token whether the nonce was used. */
async function reconcileUnknown(deps: PaymentsDeps, usdc: UsdcRuntime, row: Row) {
  const fromBlock =
    row.from_block !== null ? BigInt(Math.max(0, row.from_block - 5)) : await fallbackFrom(usdc);
  const use = await findAuthorizationUse({
    ...usdc.config,
    payer: storedHex(row.payer, "usdc_payments.payer"),
    nonce: storedHex(row.nonce, "usdc_payments.nonce"),
    fromBlock,
    client: usdc.rpc,
  });
  if (use.used && use.txHash) {
    await deps.platform.db
      .updateTable("usdc_payments")
      .set({ tx_hash: use.txHash.toLowerCase(), status: "pending" })
      .where("id", "=", row.id)
      .execute();
    return use.txHash;
  }
  if (use.used) return markFailed(deps, row, "the authorization was cancelled by the payer");
  const expired = usdc.now().getTime() / 1000 > row.valid_before + 30;
  return expired
    ? markFailed(deps, row, "the authorization expired unused: nothing was taken")
    : "later";
}

async function fallbackFrom(usdc: UsdcRuntime): Promise<bigint> {
  const head = await rpcClient(usdc.config.rpcUrl, usdc.rpc).getBlockNumber({ cacheTime: 0 });
  return head > FALLBACK_LOOKBACK_BLOCKS ? head - FALLBACK_LOOKBACK_BLOCKS : 0n;
}

async function markFailed(deps: PaymentsDeps, row: Row, reason: string) {
  await deps.platform.db
    .updateTable("usdc_payments")
    .set({ status: "failed", detail: reason })
    .where("id", "=", row.id)
    .where("status", "in", ["pending", "unknown"])
    .execute();
  deps.platform.log.warn("usdc payment failed", { payment_id: row.id, reason });
  deps.platform.events.paymentOutcome({ provider: "usdc", outcome: "failed" });
  return "failed" as const;
}

async function later(deps: PaymentsDeps, row: Row) {
  const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(row.checks, 6));
  await deps.platform.db
    .updateTable("usdc_payments")
    .set({
      checks: row.checks + 1,
      next_check_at: new Date(deps.platform.clock().getTime() + backoff),
    })
    .where("id", "=", row.id)
    .execute();
}

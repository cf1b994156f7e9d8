/**
 * USDC top-ups over x402 v2 (SPEC "USDC top-up" steps 1–8). The payment is claimed by
 * (payer, nonce) before it is settled, so a replayed or concurrent signature settles at most
 * once; the balance is credited (reference = tx hash) in the same transaction that marks the
 * payment confirmed, only after our own RPC shows the transfer — here, or later in the
 * background confirmer (usdc-confirmer.ts), whichever sees it first.
 */

import type { Hex } from "viem";
import type { WalletView } from "../../api/schemas.js";
import { ApiError } from "../../domain/errors.js";
import { explorerUrl } from "../../payments/x402/config.js";
import { confirmTransfer, rpcClient } from "../../payments/x402/confirm.js";
import { encodeSettlementResponse, type SettleOutcome } from "../../payments/x402/gateway.js";
import { readAuthorization } from "../../payments/x402/payload.js";
import {
  centsToAtomic,
  decodePaymentSignature,
  encodeHeader,
  type X402Resource,
} from "../../payments/x402/terms.js";
import type { Principal } from "../auth.js";
import { freshPrincipal, walletView } from "../wallets.js";
import type { PaymentsDeps, UsdcRuntime } from "./deps.js";
import { creditConfirmedPayment } from "./usdc-credit.js";
import { usdcRuntime } from "./usdc-runtime.js";

/** A claim the request is still settling is left alone by the confirmer for this long. */
const CLAIM_GRACE_MS = 2 * 60_000;

export type CryptoTopupResult =
  | {
      status: 200;
      body: {
        credited_cents: number;
        transaction: string;
        explorer: string | null;
        wallet: WalletView;
      };
      paymentResponse?: string;
    }
  | {
      status: 202;
      body: {
        detail: string;
        transaction: string | null;
        explorer: string | null;
        status: "pending";
      };
      paymentResponse?: string;
    };

/** A USDC top-up call: who, how much, and the payment if sent. */
export interface CryptoTopupInput {
  principal: Principal;
  amountCents: number;
  paymentHeader: string | undefined;
  resource: X402Resource;
}

const PENDING =
  "Paid; waiting for the transfer to confirm on chain. The balance is credited once it confirms.";

function paymentRequiredError(
  usdc: UsdcRuntime,
  input: CryptoTopupInput,
  detail: string,
  error?: string,
) {
  const pr = usdc.gateway.paymentRequired(input.amountCents, input.resource, error);
  return new ApiError(
    "payment_required",
    detail,
    { payment_required: pr },
    { headers: { "PAYMENT-REQUIRED": encodeHeader(pr) } },
  );
}

export async function cryptoTopup(
  deps: PaymentsDeps,
  input: CryptoTopupInput,
): Promise<CryptoTopupResult> {
  const usdc = usdcRuntime(deps);
  if (!input.paymentHeader) {
    throw paymentRequiredError(
      usdc,
      input,
      // Where the signed payment goes is the surface's word: the contract's remedy says it.
      "Payment required: sign the USDC transfer these terms describe.",
    );
  }
  const auth = tryReadAuthorization(input.paymentHeader);
  if (!auth) return finish(deps, usdc, input, undefined, await settle(usdc, input));
  const claim = await claimPayment(deps, input, auth);
  if (claim.kind === "existing") return priorResult(deps, usdc, input, claim.id);
  // The head block bounds the later log search if the outcome turns out unknown.
  const fromBlock = rpcClient(usdc.config.rpcUrl, usdc.rpc)
    .getBlockNumber({ cacheTime: 0 })
    .then(Number)
    .catch(() => undefined);
  const outcome = await settle(usdc, input);
  return finish(deps, usdc, input, { id: claim.id, fromBlock }, outcome);
}

function settle(usdc: UsdcRuntime, input: CryptoTopupInput): Promise<SettleOutcome> {
  // cast: cryptoTopup returned early when the payment header is absent
  return usdc.gateway.settle(input.paymentHeader as string, input.amountCents, input.resource);
}

const clampToSafe = (n: bigint) =>
  Number(n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : n);

function tryReadAuthorization(header: string) {
  try {
    return readAuthorization(decodePaymentSignature(header));
  } catch {
    return undefined;
  }
}

async function claimPayment(
  deps: PaymentsDeps,
  input: CryptoTopupInput,
  auth: NonNullable<ReturnType<typeof readAuthorization>>,
): Promise<{ kind: "new" | "existing"; id: string }> {
  const db = deps.platform.db;
  const id = deps.platform.ids("tu");
  const now = deps.platform.clock();
  const inserted = await db
    .insertInto("usdc_payments")
    .values({
      id,
      wallet_id: input.principal.walletId,
      payer: auth.from,
      nonce: auth.nonce,
      amount_cents: input.amountCents,
      amount_atomic: centsToAtomic(input.amountCents),
      valid_before: clampToSafe(BigInt(auth.validBefore)),
      next_check_at: new Date(now.getTime() + CLAIM_GRACE_MS),
      created_at: now,
    })
    .onConflict((oc) => oc.columns(["payer", "nonce"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (inserted) return { kind: "new", id };
  const prior = await db
    .selectFrom("usdc_payments")
    .select("id")
    .where("payer", "=", auth.from)
    .where("nonce", "=", auth.nonce)
    .executeTakeFirstOrThrow();
  return { kind: "existing", id: prior.id };
}

/** A replayed signature: the same wallet gets its earlier answer, anyone else a 402. */
async function priorResult(
  deps: PaymentsDeps,
  usdc: UsdcRuntime,
  input: CryptoTopupInput,
  id: string,
): Promise<CryptoTopupResult> {
  const row = await deps.platform.db
    .selectFrom("usdc_payments")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  const mine = row.wallet_id === input.principal.walletId && row.amount_cents === input.amountCents;
  if (mine && row.status === "confirmed" && row.tx_hash) {
    return {
      status: 200,
      body: {
        credited_cents: row.amount_cents,
        transaction: row.tx_hash,
        explorer: explorerUrl(usdc.config, row.tx_hash),
        wallet: await walletView(deps.platform, freshPrincipal(input.principal)),
      },
    };
  }
  if (mine && (row.status === "pending" || (row.status === "unknown" && row.tx_hash))) {
    return pending(usdc, row.tx_hash);
  }
  throw paymentRequiredError(
    usdc,
    input,
    "This payment was already used; sign a new payment to top up again.",
    "payment_already_used",
  );
}

function pending(
  usdc: UsdcRuntime,
  txHash: string | null,
  paymentResponse?: string,
  detail = PENDING,
): CryptoTopupResult {
  return {
    status: 202,
    body: {
      detail,
      transaction: txHash,
      explorer: txHash ? explorerUrl(usdc.config, txHash) : null,
      status: "pending",
    },
    ...(paymentResponse ? { paymentResponse } : {}),
  };
}

async function finish(
  deps: PaymentsDeps,
  usdc: UsdcRuntime,
  input: CryptoTopupInput,
  claim: { id: string; fromBlock: Promise<number | undefined> } | undefined,
  outcome: SettleOutcome,
): Promise<CryptoTopupResult> {
  const db = deps.platform.db;
  const log = deps.platform.log;
  if (outcome.kind === "refused" || outcome.kind === "unavailable") {
    // Nothing moved: release the claim so the same signature may be tried again later.
    if (claim) await db.deleteFrom("usdc_payments").where("id", "=", claim.id).execute();
    deps.platform.events.paymentOutcome({ provider: "usdc", outcome: outcome.kind });
    if (outcome.kind === "unavailable") {
      log.warn("x402 facilitator unavailable", { internal: outcome.internal });
      throw new ApiError("unavailable", outcome.reason);
    }
    log.info("usdc payment refused", { code: outcome.code });
    const pr = outcome.paymentRequired;
    throw new ApiError(
      "payment_required",
      outcome.reason,
      { payment_required: pr },
      { headers: { "PAYMENT-REQUIRED": encodeHeader(pr) } },
    );
  }
  if (!claim) throw new Error("a payment without an EIP-3009 authorization was settled");
  const now = deps.platform.clock();
  const txHash = outcome.txHash ?? null;
  await db
    .updateTable("usdc_payments")
    .set({
      tx_hash: txHash,
      status: outcome.kind === "unknown" ? "unknown" : "pending",
      detail: outcome.kind === "unknown" ? outcome.internal : null,
      from_block: (await claim.fromBlock) ?? null,
      next_check_at: now,
    })
    .where("id", "=", claim.id)
    .execute();
  if (outcome.kind !== "settled") {
    deps.platform.events.paymentOutcome({ provider: "usdc", outcome: outcome.kind });
  }
  if (outcome.kind === "unknown") {
    log.warn("usdc settlement outcome unknown", {
      payment_id: claim.id,
      internal: outcome.internal,
    });
    return pending(usdc, txHash, undefined, outcome.reason);
  }
  const receipt = encodeSettlementResponse(outcome);
  if (outcome.kind === "pending") return pending(usdc, outcome.txHash, receipt);
  return confirmNow(deps, usdc, input, claim.id, outcome.txHash, outcome.payer, receipt);
}

async function confirmNow(
  deps: PaymentsDeps,
  usdc: UsdcRuntime,
  input: CryptoTopupInput,
  paymentId: string,
  txHash: Hex,
  payer: Hex,
  receipt: string,
): Promise<CryptoTopupResult> {
  let confirmed: Awaited<ReturnType<typeof confirmTransfer>>;
  try {
    confirmed = await confirmTransfer({
      ...usdc.config,
      txHash,
      payer,
      amountAtomic: centsToAtomic(input.amountCents),
      client: usdc.rpc,
    });
  } catch (err) {
    deps.platform.log.warn("usdc confirmation deferred: RPC failed", {
      payment_id: paymentId,
      err,
    });
    return pending(usdc, txHash, receipt);
  }
  if (confirmed.status === "pending") return pending(usdc, txHash, receipt);
  if (confirmed.status === "failed") {
    deps.platform.events.paymentOutcome({ provider: "usdc", outcome: "failed" });
    await deps.platform.db
      .updateTable("usdc_payments")
      .set({ status: "failed", detail: confirmed.reason })
      .where("id", "=", paymentId)
      .where("status", "=", "pending")
      .execute();
    throw paymentRequiredError(
      usdc,
      input,
      "The transfer did not go through on chain; nothing was credited. Sign a new payment.",
    );
  }
  await creditConfirmedPayment(deps, paymentId);
  return {
    status: 200,
    body: {
      credited_cents: input.amountCents,
      transaction: txHash,
      explorer: explorerUrl(usdc.config, txHash),
      wallet: await walletView(deps.platform, freshPrincipal(input.principal)),
    },
    paymentResponse: receipt,
  };
}

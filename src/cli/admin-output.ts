/**
 * What `kinora admin` prints for a person: one sentence (or a table) per answer, in dollars as
 * every other command speaks; `--json` prints the server's answer as it is, for scripts.
 */
import type { Output } from "@kinora/client";
import { dollars, formatAge, table } from "../../packages/cli/src/format.js";

/** A credit or debit as applied (or, for a repeated reference, not applied again). */
export function creditLines(
  answer: Output<"adjustWalletBalance">,
  amountCents: number,
  reason: string,
  reference: string | undefined,
): string {
  const { wallet_id: id } = answer;
  const balance = dollars(answer.balance_cents);
  if (!answer.applied) {
    return `Nothing applied: reference "${reference ?? ""}" was already used for this adjustment of ${id}; its balance is ${balance}.`;
  }
  const what =
    amountCents > 0
      ? `Credited ${dollars(amountCents)} to ${id}`
      : `Debited ${dollars(-amountCents)} from ${id}`;
  return `${what} ("${reason}"${reference ? `, reference ${reference}` : ""}); its balance is now ${balance}.`;
}

/** A pause or unpause. */
export function pauseLine(answer: Output<"pauseWallet">): string {
  const balance = dollars(answer.balance_cents);
  return answer.paused
    ? `Paused ${answer.id}: nothing can be spent from it until \`kinora admin unpause ${answer.id}\` (balance ${balance}).`
    : `Unpaused ${answer.id}: it can spend again (balance ${balance}).`;
}

/** A USDC refund: sent, on its way, or failed. */
export function usdcRefundLine(answer: Output<"refundUsdc">): string {
  const r = answer.refund;
  const amount = `${dollars(r.amount_cents)} in USDC to ${r.to}`;
  const tx = r.transaction ? ` (transaction ${r.explorer ?? r.transaction})` : "";
  const balance = `the wallet's balance is now ${dollars(r.balance_cents)}`;
  switch (r.status) {
    case "sent":
      return `Sent ${amount} for ${r.wallet_id}${tx}; ${balance}.`;
    case "failed":
      return `The refund of ${amount} failed: ${r.error ?? "no reason given"}. Nothing left the balance (${dollars(r.balance_cents)}).`;
    default:
      return `The refund of ${amount} is ${r.status === "sending" ? "being sent" : "sent, its outcome not yet known"}${tx}; ${balance}. Refund ${r.id}.`;
  }
}

type Held = Output<"releaseHeldCheckout">;

/** The held card payments as a table. */
export function heldLines(answer: Output<"listHeldCheckouts">): string[] {
  if (answer.held.length === 0) return ["No card payment is held."];
  const rows = answer.held.map((h) => [
    h.checkout_id,
    h.purpose === "topup" ? `top-up of ${h.wallet_id ?? "?"}` : `restore ${h.job_id ?? "?"}`,
    dollars(h.amount_cents),
    h.paid_amount_cents === null ? "?" : dollars(h.paid_amount_cents),
    h.paid_at ? formatAge(h.paid_at) : "-",
    h.held_reason ?? "-",
  ]);
  return [
    ...table(["CHECKOUT", "FOR", "ASKED", "PAID", "PAID AT", "WHY HELD"], rows),
    "Apply one after review: kinora admin release CHECKOUT [--amount DOLLARS].",
  ];
}

/** A released held payment. */
export function releaseLine(answer: Held, creditedCents: number | undefined): string {
  if (answer.purpose === "restore_job") {
    return `Released ${answer.checkout_id}: restore ${answer.job_id ?? "?"} is paid and starts.`;
  }
  const credited = creditedCents ?? answer.paid_amount_cents ?? answer.amount_cents;
  return `Released ${answer.checkout_id}: ${dollars(credited)} credited to ${answer.wallet_id ?? "the wallet"}.`;
}

/** The ledger check: that it holds, or each drift. */
export function reconcileLines(answer: Output<"reconcileLedger">): string[] {
  const checked = `${answer.wallets_checked} wallets, ${answer.keys_checked} keys and ${answer.entries_checked} ledger entries checked`;
  if (answer.ok) return [`The ledger reconciles: ${checked}.`];
  return [
    `The ledger does NOT reconcile (${answer.drift.length} problems; ${checked}):`,
    ...answer.drift.map(
      (d) => `  ${d.kind} ${d.id}: expected ${dollars(d.expected)}, found ${dollars(d.actual)}`,
    ),
    "Correct each with an adjustment: kinora admin credit WALLET DOLLARS --reason TEXT.",
  ];
}

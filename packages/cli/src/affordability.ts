/**
 * Before a price is put to the person: can the key in use pay it from the balance? Read from
 * GET /wallet (balance, spendable, the agent key's limit). When it cannot, the command stops
 * before asking anything, saying what is missing — money on the balance, room under the key's
 * limit, or an operator's pause — and how to fix it, with the error table's exit code.
 */
import { ERROR_TABLE, type ErrorCode, type Wallet } from "@kinora/client";
import type { ClientContext } from "./command.js";
import { CliFailure } from "./failures.js";
import { dollars } from "./format.js";

/** What stops a payment: the error code the server would answer, and what to tell the person. */
interface Shortfall {
  code: Extract<ErrorCode, "needs_topup" | "over_limit" | "wallet_paused">;
  /** What is missing and the command that fixes it. */
  lines: string[];
}

/** The smallest top-up the server takes (POST /wallet/topup's range starts at $5). */
const MIN_TOPUP_DOLLARS = 5;

/** Whole dollars covering `cents` (what a person types after `kinora topup`). */
const wholeDollars = (cents: number) => Math.ceil(cents / 100);

/**
 * Why `w`'s key cannot pay `priceCents` from the balance, each reason with its fix; empty when
 * it can. The order is the order to fix them in.
 */
export function shortfalls(w: Wallet, priceCents: number): Shortfall[] {
  if (w.paused) {
    return [
      {
        code: "wallet_paused",
        lines: [
          "The wallet is paused by the server's operator: nothing can be spent from it until they lift the pause.",
        ],
      },
    ];
  }
  const found: Shortfall[] = [];
  if (w.balance_cents < priceCents) {
    const missing = priceCents - w.balance_cents;
    const amount = Math.max(MIN_TOPUP_DOLLARS, wholeDollars(missing));
    found.push({
      code: "needs_topup",
      lines: [
        `The balance is ${dollars(w.balance_cents)}, ${dollars(missing)} short of the price.`,
        `Top up first: kinora topup ${amount}`,
      ],
    });
  }
  const k = w.agent_key;
  if (k && k.remaining_cents < priceCents) {
    const name = k.label ? `"${k.label}" (${k.id})` : k.id;
    const newLimit = wholeDollars(k.spent_cents + priceCents);
    found.push({
      code: "over_limit",
      lines: [
        `This agent key ${name} has ${dollars(k.remaining_cents)} left of its ${dollars(k.limit_cents)} limit.`,
        `The wallet's owner can raise it with the wallet key: kinora keys limit ${k.id} ${newLimit}`,
      ],
    });
  }
  return found;
}

/**
 * Stops the command (exit 3 for needs_topup / over_limit / wallet_paused, as the server's table
 * says) when the key in use cannot pay `priceCents` from the balance — before any question.
 */
export async function ensureCanPay(
  ctx: ClientContext,
  priceCents: number,
  what: string,
): Promise<void> {
  const { wallet } = await ctx.api.call("getWallet", {});
  const found = shortfalls(wallet, priceCents);
  const first = found[0];
  if (!first) return;
  const message = [
    `${what} costs ${dollars(priceCents)}, which this key cannot pay now; nothing was charged.`,
    ...found.flatMap((f) => f.lines.map((l) => `  ${l}`)),
  ].join("\n");
  throw new CliFailure(message, ERROR_TABLE[first.code].exit, {
    code: first.code,
    missing: found.map((f) => f.code),
    price_cents: priceCents,
    wallet,
    ...(found.some((f) => f.code === "needs_topup") ? { needs_topup: true } : {}),
    ...(found.some((f) => f.code === "over_limit") ? { over_limit: true } : {}),
  });
}

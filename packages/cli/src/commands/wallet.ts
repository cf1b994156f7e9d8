/** `kinora wallet` (balance and allowance) and `kinora topup` (a checkout link, then the credit). */

import type { Output, Wallet } from "@kinora/client";
import { sleep } from "@kinora/client";
import {
  type ClientCommand,
  type ClientContext,
  COMMON_HELP,
  flagArg,
  stringArg,
} from "../command.js";
import { EXIT } from "../exit-codes.js";
import { ApiFailure, CliFailure, Interrupted, UsageError } from "../failures.js";
import { dollars, parseDollars } from "../format.js";
import { openUrl } from "../open-url.js";
import { spinner } from "../progress.js";

/** The wallet as a few lines for a person. */
export function walletLines(w: Wallet): string[] {
  const lines = [
    `Wallet     ${w.wallet_id}${w.email ? ` (${w.email})` : ""}`,
    `Balance    ${dollars(w.balance_cents)}`,
    `Spendable  ${dollars(w.spendable_cents)}${w.paused ? "  (paused by the operator: nothing can be spent)" : ""}`,
  ];
  const k = w.agent_key;
  if (k) {
    lines.push(
      `This key   ${k.label ? `"${k.label}" ` : ""}${k.id}: ${dollars(k.limit_cents)} limit, ${dollars(k.spent_cents)} spent, ${dollars(k.remaining_cents)} left`,
    );
  }
  return lines;
}

async function readWallet(ctx: ClientContext): Promise<Wallet> {
  ctx.api.requireKey();
  return (await ctx.api.call("getWallet", {})).wallet;
}

async function wallet(ctx: ClientContext): Promise<number> {
  const w = await readWallet(ctx);
  ctx.out.result({ wallet: w }, walletLines(w));
  return 0;
}

type Checkout = Output<"createTopUpLink">;

const POLL_MS = 2000;

async function topup(ctx: ClientContext): Promise<number> {
  const { out, args } = ctx;
  const [amount, extra] = args.positionals;
  if (!amount || extra)
    throw new UsageError("Usage: kinora topup AMOUNT_IN_DOLLARS  (e.g. kinora topup 20)");
  const amountCents = parseDollars(amount, "AMOUNT");
  const timeoutMin = Number(stringArg(args, "timeout") ?? 30);
  if (!Number.isFinite(timeoutMin) || timeoutMin <= 0)
    throw new UsageError("--timeout must be a number of minutes.");
  const before = await readWallet(ctx);
  const checkout = await ctx.api
    .call("createTopUpLink", {
      amount_cents: amountCents,
    })
    .catch((err: unknown) => {
      // The API speaks cents; the person typed dollars.
      if (err instanceof ApiFailure && err.status === 400) {
        throw new CliFailure(
          `${dollars(amountCents)} was refused: ${err.message}`,
          err.exitCode,
          err.fields,
        );
      }
      throw err;
    });
  const wait = !flagArg(args, "no-wait");
  const linkLine = `Pay ${checkout.display} here: ${checkout.checkout_url}`;
  // The link must reach a person even under --json while we wait; stdout stays the one document.
  if (!out.json) out.streams.stdout.write(`${linkLine}\n`);
  else if (wait) out.warn(linkLine);
  if (flagArg(args, "open") && !(await openUrl(checkout.checkout_url))) {
    out.warn("Could not open a browser; open the link yourself.");
  }
  if (!wait) {
    out.result({ checkout, credited: false }, []);
    return 0;
  }
  const credited = await waitForCredit(
    ctx,
    before.balance_cents + amountCents,
    timeoutMin,
    checkout,
  );
  out.result({ checkout, credited: true, wallet: credited }, walletLines(credited));
  return 0;
}

async function waitForCredit(
  ctx: ClientContext,
  target: number,
  timeoutMin: number,
  checkout: Checkout,
): Promise<Wallet> {
  // Our own clock only: comparing with the server's expires_at would trip over clock skew.
  const until = Date.now() + timeoutMin * 60_000;
  const spin = await spinner(
    ctx.out,
    `Waiting for the payment of ${checkout.display}… (Ctrl-C stops waiting)`,
  );
  try {
    for (;;) {
      await sleep(POLL_MS, ctx.signal);
      const w = await readWallet(ctx);
      if (w.balance_cents >= target) {
        spin.stop(`Payment received: ${checkout.display} was credited.`);
        return w;
      }
      if (Date.now() > until) {
        spin.stop("No payment yet.");
        throw new CliFailure(
          `No payment arrived in time; the link works until ${checkout.expires_at}. Check later with kinora wallet.`,
          EXIT.failed,
          { checkout },
        );
      }
    }
  } catch (err) {
    if (ctx.signal.aborted) {
      spin.stop("Stopped waiting.");
      throw new Interrupted(
        "Stopped waiting. A payment made on the link is still credited; check with kinora wallet.",
      );
    }
    throw err;
  }
}

/** `kinora wallet`: balance and this key's allowance. */
export const walletCommand: ClientCommand = {
  name: "wallet",
  summary: "balance, what this key can spend, and its allowance",
  options: {},
  help: `Usage: kinora wallet

Shows the wallet's balance, what the key in use can spend now, and for an agent
key its limit, spent and remaining allowance. Money is shown in dollars.

Examples:
  kinora wallet
  kinora wallet --json | jq .wallet.spendable_cents

${COMMON_HELP}`,
  run: wallet,
};

/** `kinora topup AMOUNT`: a checkout link, then wait for the credit. */
export const topupCommand: ClientCommand = {
  name: "topup",
  summary: "add dollars to the balance through a checkout link",
  options: {
    open: { type: "boolean" },
    "no-wait": { type: "boolean" },
    timeout: { type: "string" },
  },
  help: `Usage: kinora topup AMOUNT [--open] [--no-wait] [--timeout MINUTES]

Asks the server for a checkout link for AMOUNT dollars (5 to 200), prints it, and
waits until the payment is credited to the balance (checking GET /wallet), then
says so. Ctrl-C stops waiting; a payment made later is still credited.

Options:
  --open            open the link in the browser as well
  --no-wait         print the link and return at once
  --timeout MIN     stop waiting after MIN minutes (default 30)

Examples:
  kinora topup 20 --open
  kinora topup 7.50 --no-wait --json | jq -r .checkout.checkout_url

${COMMON_HELP}`,
  run: topup,
};

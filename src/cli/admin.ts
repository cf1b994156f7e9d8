/**
 * `kinora admin …`: the operator commands, calling the admin operations (src/api/contracts/
 * admin.ts) of a running server through the client's stack — parseArgs, the one API client,
 * exit codes from the error table (1 refused, 3 money or content, 4 server or unreachable,
 * 2 usage) — with ADMIN_TOKEN as the credential. Amounts are typed and shown in dollars, as
 * in every other command (./admin-output.ts words the answers); --json gives the API's cents. `migrate` is the exception: it copies a
 * stopped embedded install and so runs on its machine (./migrate.ts).
 */
import type { Input, OperationId, Output } from "@kinora/client";
import {
  type ClientCommand,
  type ClientContext,
  COMMON_HELP,
  stringArg,
} from "../../packages/cli/src/command.js";
import { clientEnv } from "../../packages/cli/src/env.js";
import { EXIT } from "../../packages/cli/src/exit-codes.js";
import { ApiFailure, CliFailure, UsageError } from "../../packages/cli/src/failures.js";
import { parseDollars, parseSignedDollars } from "../../packages/cli/src/format.js";
import { runClientCommand } from "../../packages/cli/src/index.js";
import {
  creditLines,
  heldLines,
  pauseLine,
  reconcileLines,
  releaseLine,
  usdcRefundLine,
} from "./admin-output.js";
import type { KindTables } from "./migrate.js";

const USAGE =
  "Usage: kinora admin credit|pause|unpause|usdc-refund|held|release|reconcile|migrate …";

/** A positive amount in dollars from --amount, as cents, if given. */
function amountFlag(ctx: ClientContext): number | undefined {
  const text = stringArg(ctx.args, "amount");
  if (text === undefined) return undefined;
  const cents = parseDollars(text, "--amount");
  if (cents <= 0) throw new UsageError("--amount must be more than $0.00.");
  return cents;
}

/** Calls an admin operation; a refusal reads `STATUS: detail`, as operators' scripts grep it. */
async function call<K extends OperationId>(
  ctx: ClientContext,
  id: K,
  input: Input<K>,
): Promise<Output<K>> {
  try {
    return await ctx.api.call(id, input);
  } catch (err) {
    if (err instanceof ApiFailure) {
      throw new CliFailure(`${err.status}: ${err.message}`, err.exitCode, err.fields);
    }
    throw err;
  }
}

const CREDIT_USAGE =
  "Usage: kinora admin credit <wallet_id> <dollars> --reason TEXT [--reference REF]  (e.g. 5, 5.00 or $5; negative debits)";

async function credit(ctx: ClientContext, id: string | undefined, amount: string | undefined) {
  if (!id || amount === undefined) throw new UsageError(CREDIT_USAGE);
  const cents = parseSignedDollars(amount, "The amount");
  const reason = stringArg(ctx.args, "reason") ?? "operator credit";
  const reference = stringArg(ctx.args, "reference");
  const answer = await call(ctx, "adjustWalletBalance", {
    id,
    amount_cents: cents,
    reason,
    ...(reference ? { reference } : {}),
  });
  ctx.out.result(answer, creditLines(answer, cents, reason, reference));
  return EXIT.ok;
}

async function pause(ctx: ClientContext, sub: "pause" | "unpause", id: string | undefined) {
  if (!id) throw new UsageError(`Usage: kinora admin ${sub} <wallet_id> [--reason TEXT]`);
  const reason = stringArg(ctx.args, "reason");
  const answer = await call(ctx, sub === "pause" ? "pauseWallet" : "unpauseWallet", {
    id,
    ...(reason ? { reason } : {}),
  });
  ctx.out.result(answer, pauseLine(answer));
  return EXIT.ok;
}

async function usdcRefund(ctx: ClientContext, id: string | undefined) {
  const usage =
    "Usage: kinora admin usdc-refund <wallet_id> [--amount DOLLARS]  (default: all USDC-funded balance left)";
  const cents = amountFlag(ctx);
  if (!id) throw new UsageError(usage);
  const answer = await call(ctx, "refundUsdc", {
    id,
    ...(cents === undefined ? {} : { amount_cents: cents }),
  });
  ctx.out.result(answer, usdcRefundLine(answer));
  return answer.refund.status === "failed" ? EXIT.server : EXIT.ok;
}

async function release(ctx: ClientContext, id: string | undefined) {
  const cents = amountFlag(ctx);
  if (!id) throw new UsageError("Usage: kinora admin release <checkout_id> [--amount DOLLARS]");
  const answer = await call(ctx, "releaseHeldCheckout", {
    id,
    ...(cents === undefined ? {} : { amount_cents: cents }),
  });
  ctx.out.result(answer, releaseLine(answer, cents));
  return EXIT.ok;
}

async function admin(ctx: ClientContext): Promise<number> {
  const [sub, id, amount, extra] = ctx.args.positionals;
  if (!ctx.api.key) {
    throw new UsageError(
      "Set ADMIN_TOKEN to the server's admin token (the embedded default stores it in DATA_DIR/admin-token).",
    );
  }
  if (extra || (sub !== "credit" && amount !== undefined)) throw new UsageError(USAGE);
  switch (sub) {
    case "credit":
      return credit(ctx, id, amount);
    case "pause":
    case "unpause":
      return pause(ctx, sub, id);
    case "usdc-refund":
      return usdcRefund(ctx, id);
    case "held": {
      if (id) throw new UsageError("Usage: kinora admin held");
      const answer = await call(ctx, "listHeldCheckouts", {});
      ctx.out.result(answer, heldLines(answer));
      return EXIT.ok;
    }
    case "release":
      return release(ctx, id);
    case "reconcile": {
      if (id) throw new UsageError("Usage: kinora admin reconcile");
      const report = await call(ctx, "reconcileLedger", {});
      ctx.out.result(report, reconcileLines(report));
      return report.ok ? EXIT.ok : EXIT.refused;
    }
    default:
      throw new UsageError(USAGE);
  }
}

/** `kinora admin` as a client command: the same parsing, output and exit codes. */
const adminCommand: ClientCommand = {
  name: "admin",
  summary: "operator commands: credit, pause, usdc-refund, held, release, reconcile, migrate",
  credential: "admin",
  options: {
    reason: { type: "string" },
    reference: { type: "string" },
    amount: { type: "string" },
  },
  help: `Usage: kinora admin credit <wallet_id> <dollars> --reason TEXT [--reference REF]
       kinora admin pause|unpause <wallet_id> [--reason TEXT]
       kinora admin usdc-refund <wallet_id> [--amount DOLLARS]
       kinora admin held
       kinora admin release <checkout_id> [--amount DOLLARS]
       kinora admin reconcile
       kinora admin migrate --to postgres://… [--files-to s3] [--dry-run] [--json]

Calls the server's admin API with ADMIN_TOKEN (the embedded default stores it in
DATA_DIR/admin-token) and says what it did, in dollars like every other command
(--json prints the server's answer instead, amounts in cents). Amounts are dollars:
5, 5.00, $5 or 0.50; a negative credit (-2.50) debits, never below zero. The token
goes only to the server named by --server, else http://127.0.0.1:8080 — never to
one saved by kinora login. reconcile exits 3 when the ledger does not reconcile.
migrate copies this stopped embedded install (docs/migrating.md).

Examples:
  kinora admin credit wal_4f8HkQ2n9LrT1xZcV6bYpA 5 --reason "goodwill"
  kinora admin credit wal_4f8HkQ2n9LrT1xZcV6bYpA -2.50 --reason "duplicate credit"
  kinora admin reconcile --server https://kinora.example.com

${COMMON_HELP}`,
  run: admin,
};

/**
 * Runs `kinora admin …` to its exit code (`migrate` by ./migrate.ts, with the job kinds' tables
 * composition reads from the registry; the rest as above).
 */
export async function runAdminCommand(argv: string[], kindTables: KindTables): Promise<number> {
  // migrate works on this machine's DATA_DIR, not through a server's admin API.
  if (argv[0] === "migrate") {
    return (await import("./migrate.js")).runMigrateCommand(argv.slice(1), kindTables);
  }
  return runClientCommand(adminCommand, argv, { env: clientEnv(process.env) });
}

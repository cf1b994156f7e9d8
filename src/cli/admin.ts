/**
 * `kinora admin …`: the operator commands, calling the admin operations (src/api/contracts/
 * admin.ts) of a running server through the client's stack — parseArgs, the one API client,
 * exit codes from the error table (1 refused, 3 money or content, 4 server or unreachable,
 * 2 usage) — with ADMIN_TOKEN as the credential. `migrate` is the exception: it copies a
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
import { runClientCommand } from "../../packages/cli/src/index.js";

const USAGE =
  "Usage: kinora admin credit|pause|unpause|usdc-refund|held|release|reconcile|migrate …";

/** A positive whole number of cents from --amount, if given. */
function amountFlag(ctx: ClientContext, usage: string): number | undefined {
  const text = stringArg(ctx.args, "amount");
  if (text === undefined) return undefined;
  const cents = Number(text);
  if (!Number.isSafeInteger(cents) || cents <= 0) throw new UsageError(usage);
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

async function admin(ctx: ClientContext): Promise<number> {
  const [sub, id, amount, extra] = ctx.args.positionals;
  if (!ctx.api.key) {
    throw new UsageError(
      "Set ADMIN_TOKEN to the server's admin token (the embedded default stores it in DATA_DIR/admin-token).",
    );
  }
  if (extra) throw new UsageError(USAGE);
  const reason = stringArg(ctx.args, "reason");
  let result: unknown;
  switch (sub) {
    case "credit": {
      const cents = Number(amount);
      if (!id || !Number.isSafeInteger(cents) || cents === 0) {
        throw new UsageError(
          "Usage: kinora admin credit <wallet_id> <amount_cents> [--reason TEXT]  (negative debits)",
        );
      }
      const reference = stringArg(ctx.args, "reference");
      result = await call(ctx, "adjustWalletBalance", {
        id,
        amount_cents: cents,
        reason: reason ?? "operator credit",
        ...(reference ? { reference } : {}),
      });
      break;
    }
    case "pause":
    case "unpause":
      if (!id || amount) throw new UsageError(`Usage: kinora admin ${sub} <wallet_id>`);
      result = await call(ctx, sub === "pause" ? "pauseWallet" : "unpauseWallet", {
        id,
        ...(reason ? { reason } : {}),
      });
      break;
    case "usdc-refund": {
      const usage =
        "Usage: kinora admin usdc-refund <wallet_id> [--amount CENTS]  (default: all USDC-funded balance left)";
      const cents = amountFlag(ctx, usage);
      if (!id || amount) throw new UsageError(usage);
      result = await call(ctx, "refundUsdc", {
        id,
        ...(cents === undefined ? {} : { amount_cents: cents }),
      });
      break;
    }
    case "held":
      if (id) throw new UsageError("Usage: kinora admin held");
      result = await call(ctx, "listHeldCheckouts", {});
      break;
    case "release": {
      const usage = "Usage: kinora admin release <checkout_id> [--amount CENTS]";
      const cents = amountFlag(ctx, usage);
      if (!id || amount) throw new UsageError(usage);
      result = await call(ctx, "releaseHeldCheckout", {
        id,
        ...(cents === undefined ? {} : { amount_cents: cents }),
      });
      break;
    }
    case "reconcile": {
      if (id) throw new UsageError("Usage: kinora admin reconcile");
      const report = await call(ctx, "reconcileLedger", {});
      ctx.out.result(report, JSON.stringify(report, null, 2));
      return report.ok ? EXIT.ok : EXIT.refused;
    }
    default:
      throw new UsageError(USAGE);
  }
  ctx.out.result(result, JSON.stringify(result, null, 2));
  return EXIT.ok;
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
  help: `Usage: kinora admin credit <wallet_id> <amount_cents> [--reason TEXT] [--reference REF]
       kinora admin pause|unpause <wallet_id> [--reason TEXT]
       kinora admin usdc-refund <wallet_id> [--amount CENTS]
       kinora admin held
       kinora admin release <checkout_id> [--amount CENTS]
       kinora admin reconcile
       kinora admin migrate --to postgres://… [--files-to s3] [--dry-run] [--json]

Calls the server's admin API with ADMIN_TOKEN (the embedded default stores it in
DATA_DIR/admin-token) and prints the answer as JSON. The token goes only to the
server named by --server, else http://127.0.0.1:8080 — never to one saved by
kinora login. A negative credit debits. reconcile exits 3 when the ledger does not
reconcile. migrate copies this stopped embedded install (docs/migrating.md).

Examples:
  kinora admin credit wal_4f8HkQ2n9LrT1xZcV6bYpA 500 --reason "goodwill"
  kinora admin reconcile --server https://kinora.example.com

${COMMON_HELP}`,
  run: admin,
};

/** Runs `kinora admin …` to its exit code (`migrate` by ./migrate.ts, the rest as above). */
export async function runAdminCommand(argv: string[]): Promise<number> {
  // migrate works on this machine's DATA_DIR, not through a server's admin API.
  if (argv[0] === "migrate") return (await import("./migrate.js")).runMigrateCommand(argv.slice(1));
  return runClientCommand(adminCommand, argv, { env: clientEnv(process.env) });
}

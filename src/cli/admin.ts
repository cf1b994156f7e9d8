/**
 * `kinora admin …`: the operator commands, calling the admin API of a running server — except
 * `migrate`, which copies a stopped embedded install and so runs on its machine (./migrate.ts).
 * A refusal exits as the `kinora` client does: by the error table's `exit` for the body's code
 * (1 refused, 3 money or content, 4 server), 4 when the server cannot be reached, 2 for usage.
 */
import { CliError, callJson, parseFlags } from "./http-client.js";

const DEFAULT_SERVER = "http://127.0.0.1:8080";

export async function runAdminCommand(argv: string[]): Promise<number> {
  // migrate works on this machine's DATA_DIR, not through a server's admin API.
  if (argv[0] === "migrate") return (await import("./migrate.js")).runMigrateCommand(argv.slice(1));
  try {
    const { args, flags } = parseFlags(argv, ["server", "reason", "reference", "amount"]);
    const token = process.env.ADMIN_TOKEN;
    if (!token) {
      throw new CliError(
        "Set ADMIN_TOKEN to the server's admin token (the embedded default stores it in DATA_DIR/admin-token).",
      );
    }
    const opts = { server: flags.server ?? DEFAULT_SERVER, token };
    const [sub, walletId, amount] = args;
    let result: unknown;
    switch (sub) {
      case "credit": {
        const cents = Number(amount);
        if (!walletId || !Number.isSafeInteger(cents) || cents === 0) {
          throw new CliError(
            "Usage: kinora admin credit <wallet_id> <amount_cents> [--reason TEXT]  (negative debits)",
          );
        }
        result = await callJson(
          opts,
          "POST",
          `/admin/wallets/${encodeURIComponent(walletId)}/credit`,
          {
            amount_cents: cents,
            reason: flags.reason ?? "operator credit",
            ...(flags.reference ? { reference: flags.reference } : {}),
          },
        );
        break;
      }
      case "pause":
      case "unpause":
        if (!walletId) throw new CliError(`Usage: kinora admin ${sub} <wallet_id>`);
        result = await callJson(
          opts,
          "POST",
          `/admin/wallets/${encodeURIComponent(walletId)}/${sub}`,
          {
            ...(flags.reason ? { reason: flags.reason } : {}),
          },
        );
        break;
      case "usdc-refund": {
        const cents = flags.amount === undefined ? undefined : Number(flags.amount);
        if (!walletId || (cents !== undefined && (!Number.isSafeInteger(cents) || cents <= 0))) {
          throw new CliError(
            "Usage: kinora admin usdc-refund <wallet_id> [--amount CENTS]  (default: all USDC-funded balance left)",
          );
        }
        result = await callJson(
          opts,
          "POST",
          `/admin/wallets/${encodeURIComponent(walletId)}/usdc-refund`,
          cents === undefined ? {} : { amount_cents: cents },
        );
        break;
      }
      case "held":
        result = await callJson(opts, "GET", "/admin/checkouts/held");
        break;
      case "release": {
        // `walletId` is the checkout id here: kinora admin release <checkout_id> [--amount CENTS]
        const cents = flags.amount === undefined ? undefined : Number(flags.amount);
        if (!walletId || (cents !== undefined && (!Number.isSafeInteger(cents) || cents <= 0))) {
          throw new CliError("Usage: kinora admin release <checkout_id> [--amount CENTS]");
        }
        result = await callJson(
          opts,
          "POST",
          `/admin/checkouts/${encodeURIComponent(walletId)}/release`,
          cents === undefined ? {} : { amount_cents: cents },
        );
        break;
      }
      case "reconcile": {
        const report = (await callJson(opts, "GET", "/admin/reconcile")) as { ok: boolean };
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return report.ok ? 0 : 3;
      }
      default:
        throw new CliError(
          "Usage: kinora admin credit|pause|unpause|usdc-refund|held|release|reconcile|migrate …",
        );
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      process.stderr.write(`kinora admin: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

/**
 * The `kinora` command: `serve` (what npm start runs), `worker`, and the client/operator
 * commands that talk to a server over HTTP. The server side is imported only when asked for,
 * so a client command starts in a fraction of a second.
 */
import { clientEnv } from "../packages/cli/src/env.js";
import {
  clientUsageLines,
  findClientCommand,
  runClientCommand,
} from "../packages/cli/src/index.js";

const USAGE = `Usage: kinora <command>   (kinora <command> --help for its options and examples)

Use a server (your wallet, restores and clips):
${clientUsageLines().join("\n")}

Run a server:
  serve                              start the API (and in-process workers)
  worker --server URL [--concurrency N]
                                     run jobs for a server over its worker API (the token
                                     from WORKER_TOKEN; --token T also works but shows in ps)
  admin credit <wallet_id> <cents> [--reason TEXT]
  admin pause <wallet_id> [--reason TEXT]
  admin unpause <wallet_id>
  admin usdc-refund <wallet_id> [--amount CENTS]
                                     send unused USDC-funded balance back in USDC
  admin held                         card payments held (amount differed from the checkout)
  admin release <checkout_id> [--amount CENTS]
                                     apply a held payment after review
  admin reconcile
  admin migrate --to postgres://… [--files-to s3] [--dry-run] [--json]
                                     copy this stopped embedded install (DATA_DIR) into
                                     PostgreSQL (and S3), then verify (docs/migrating.md)

Client and operator commands take --server URL (default http://127.0.0.1:8080; for the
user commands also KINORA_SERVER or the server saved by kinora login); admin commands read
ADMIN_TOKEN from the environment (admin migrate reads DATA_DIR, STORAGE_DIR and S3_* instead).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const client = findClientCommand(command);
  if (client) return runClientCommand(client, rest, { env: clientEnv(process.env) });
  switch (command) {
    case "serve": {
      const config = (await import("./config.js")).loadConfig();
      const { announceStart, startupStep } = await import("./cli/startup-steps.js");
      announceStart(config);
      // The database opens while the rest of the service loads (see server-database.ts).
      const opening = startupStep(
        "opening the database",
        (await import("./server-database.js")).openServerDatabase(config),
      );
      opening.catch(() => {}); // awaited by startServer; this only keeps it from being "unhandled"
      const { startServer } = await startupStep("loading the service", import("./server.js"));
      const server = await startupStep("starting the service", startServer(config, opening));
      process.stdout.write(`kinora is listening on ${server.url}  (docs: ${server.url}/docs)\n`);
      const stop = () => {
        server.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return -1;
    }
    case "worker":
      return (await import("./worker.js")).runWorkerCommand(rest);
    case "admin":
      return (await import("./cli/admin.js")).runAdminCommand(rest);
    case undefined:
    case "help":
    case "--help":
    case "-h": {
      const topic = findClientCommand(rest[0]);
      process.stdout.write(`${topic ? topic.help : USAGE}\n`);
      return command === undefined ? 2 : 0;
    }
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

/** Exits once stdout and stderr have taken everything written (pipes are async on some OSes). */
async function exitAfterFlush(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write("", resolve))),
  );
  process.exit(code);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) void exitAfterFlush(code);
  },
  (err: unknown) => {
    // Matched by name: importing their modules here would load the server's config for every command.
    const expected = ["ConfigError", "DataDirLockedError"].includes((err as Error)?.name);
    if (expected) {
      process.stderr.write(`kinora: ${(err as Error).message}\n`);
    } else {
      process.stderr.write(
        `kinora: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    }
    process.exit(1);
  },
);

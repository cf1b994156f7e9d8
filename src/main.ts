/**
 * The `kinora` command: `serve` (what npm start runs), `worker`, and the client/operator
 * commands that talk to a server over HTTP.
 */
import { runAdminCommand } from "./cli/admin.js";
import { runWorkerCommand } from "./cli/worker.js";
import { ConfigError, loadConfig } from "./config.js";
import { DataDirLockedError } from "./db/dir-lock.js";
import { startServer } from "./server.js";

const USAGE = `Usage: kinora <command>

  serve                              start the API (and in-process workers)
  worker --server URL --token T [--concurrency N]
                                     run jobs for a server over its worker API
  admin credit <wallet_id> <cents> [--reason TEXT]
  admin pause <wallet_id> [--reason TEXT]
  admin unpause <wallet_id>
  admin usdc-refund <wallet_id> [--amount CENTS]
                                     send unused USDC-funded balance back in USDC
  admin reconcile

Client and operator commands take --server URL (default http://127.0.0.1:8080);
admin commands read ADMIN_TOKEN from the environment.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve": {
      const server = await startServer(loadConfig());
      process.stdout.write(`kinora is listening on ${server.url}  (docs: ${server.url}/docs)\n`);
      const stop = () => {
        server.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return -1;
    }
    case "worker":
      return runWorkerCommand(rest);
    case "admin":
      return runAdminCommand(rest);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof DataDirLockedError) {
      process.stderr.write(`kinora: ${err.message}\n`);
    } else {
      process.stderr.write(
        `kinora: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    }
    process.exit(1);
  },
);

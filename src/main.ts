/**
 * The `kinora` command: `serve` (what npm start runs), `worker`, and the client/operator
 * commands that talk to a server over HTTP. The server side is imported only when asked for,
 * so a client command starts in a fraction of a second.
 */
import { clientEnv } from "../packages/cli/src/env.js";
import { exitWhenDone } from "../packages/cli/src/exit.js";
import {
  clientUsageLines,
  findClientCommand,
  runClientCommand,
} from "../packages/cli/src/index.js";
import {
  failureMessage,
  isServerCommand,
  runServerCommand,
  serverUsageLines,
} from "./server-commands.js";

const USAGE = `Usage: kinora <command>   (kinora <command> --help for its options and examples)

Use a server (your wallet, restores and clips):
${clientUsageLines().join("\n")}

Run a server:
${serverUsageLines().join("\n")}

Client and operator commands take --server URL (default http://127.0.0.1:8080; for the
user commands also KINORA_SERVER or the server saved by kinora login); admin commands read
ADMIN_TOKEN from the environment (admin migrate reads DATA_DIR, STORAGE_DIR and S3_* instead).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const client = findClientCommand(command);
  if (client) return runClientCommand(client, rest, { env: clientEnv(process.env) });
  if (isServerCommand(command)) return runServerCommand(argv);
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h": {
      // `kinora help restore` is `kinora restore --help` (with the server's prices).
      const topic = findClientCommand(rest[0]);
      if (topic) {
        return runClientCommand(topic, ["--help", ...rest.slice(1)], {
          env: clientEnv(process.env),
        });
      }
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    }
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

exitWhenDone("kinora", main(process.argv.slice(2)), failureMessage);

/**
 * The `kinora` command of the client package: the user commands (./index.ts) over a server's
 * public API, and `serve`, `worker` and `admin` handed to the server package (`@kinora/server`)
 * when it is installed beside this one — the client itself carries no server code, so it
 * installs in a few hundred KB. Without the server package those three say how to get it
 * (from a clone of the repository: it is not on the npm registry).
 */
import { clientEnv } from "./env.js";
import { exitWhenDone } from "./exit.js";
import { clientUsageLines, findClientCommand, runClientCommand } from "./index.js";

/** The commands the server package runs. */
const SERVER_COMMANDS = new Set(["serve", "worker", "admin"]);

/** What the server package exports for the client to hand its commands to. */
interface ServerPackage {
  runServerCommand(argv: string[]): Promise<number>;
  serverUsageLines?(): string[];
}

/** The server package when it is installed where this client can import it; null otherwise. */
async function loadServer(): Promise<ServerPackage | null> {
  const name = "@kinora/server";
  try {
    // cast: a dynamic import of @kinora/server, whose entry exports the ServerPackage shape
    return (await import(name)) as ServerPackage;
  } catch (err) {
    // cast: a failed import throws Node's error with a code (ERR_MODULE_NOT_FOUND)
    const e = err as NodeJS.ErrnoException;
    const missing =
      (e.code === "ERR_MODULE_NOT_FOUND" || e.code === "MODULE_NOT_FOUND") &&
      String(e.message).includes(name);
    if (missing) return null;
    throw err;
  }
}

// The server is not on the npm registry: it comes from a clone of the repository, run there or
// packed into a tarball that installs beside this client.
const NO_SERVER = `runs a kinora server, which is not installed beside this client. The server package
(@kinora/server) is not on the npm registry; get it from a clone of the kinora repository:
  run it there:               npm install && npm start
  or install it beside this:  npm pack -w @kinora/server   (in the clone), then
                              npm install -g ./kinora-server-1.0.0.tgz`;

async function usage(): Promise<string> {
  const server = await loadServer();
  const serverLines = server?.serverUsageLines?.() ?? [
    "  serve | worker | admin …           need the server package, @kinora/server (not on the",
    "                                     npm registry: kinora serve says how to get it)",
  ];
  return [
    "Usage: kinora <command>   (kinora <command> --help for its options and examples)",
    "",
    "Use a server (your wallet, restores and clips):",
    ...clientUsageLines(),
    "",
    "Run a server:",
    ...serverLines,
    "",
    "Commands take --server URL (default http://127.0.0.1:8080, or KINORA_SERVER, or the server",
    "saved by kinora login) and --json.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const client = findClientCommand(command);
  if (client) return runClientCommand(client, rest, { env: clientEnv(process.env) });
  if (command !== undefined && SERVER_COMMANDS.has(command)) {
    const server = await loadServer();
    if (!server) {
      process.stderr.write(`kinora ${command} ${NO_SERVER}\n`);
      return 2;
    }
    return server.runServerCommand(argv);
  }
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h": {
      // `kinora help restore` is `kinora restore --help` (with the server's prices).
      const topic = findClientCommand(rest[0]);
      if (topic)
        return runClientCommand(topic, ["--help", ...rest.slice(1)], {
          env: clientEnv(process.env),
        });
      process.stdout.write(`${await usage()}\n`);
      return command === undefined ? 2 : 0;
    }
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${await usage()}\n`);
      return 2;
  }
}

exitWhenDone("kinora", main(process.argv.slice(2)));

/**
 * The server's commands — `serve`, `worker` and `admin` — in one place: `kinora` (src/main.ts)
 * dispatches them here, and so does the `kinora-server` command of the @kinora/server package
 * (packages/server), whose entry point this module is. Everything heavy is imported only when
 * its command runs, so importing this module for its usage lines costs nothing.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { exitWhenDone } from "../packages/cli/src/exit.js";

/** The commands this module runs. */
export const SERVER_COMMANDS = ["serve", "worker", "admin"] as const;

/** Whether `name` is one of the server's commands. */
export function isServerCommand(name: string | undefined): boolean {
  return SERVER_COMMANDS.some((command) => command === name);
}

/** The usage lines of the server's commands, indented as `kinora --help` shows them. */
export function serverUsageLines(): string[] {
  return `  serve                              start the API (and in-process workers)
  worker --server URL [--concurrency N]
                                     run jobs for a server over its worker API (the token
                                     from WORKER_TOKEN; --token T also works but shows in ps)
  admin credit <wallet_id> <dollars> --reason TEXT  (negative debits)
  admin pause <wallet_id> [--reason TEXT]
  admin unpause <wallet_id>
  admin usdc-refund <wallet_id> [--amount DOLLARS]
                                     send unused USDC-funded balance back in USDC
  admin held                         card payments held (amount differed from the checkout)
  admin release <checkout_id> [--amount DOLLARS]
                                     apply a held payment after review
  admin reconcile
  admin migrate --to postgres://… [--files-to s3] [--dry-run] [--json]
                                     copy this stopped embedded install (DATA_DIR) into
                                     PostgreSQL (and S3), then verify (docs/migrating.md)`.split(
    "\n",
  );
}

/**
 * Runs `serve`, `worker` or `admin` with its arguments (`argv[0]` is the command). Resolves
 * with the exit code, or -1 when the process must keep running (a server, a worker: they exit
 * on SIGINT/SIGTERM). Any other command prints the usage and gives 2.
 */
export async function runServerCommand(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serve();
    case "worker":
      return (await import("./worker.js")).runWorkerCommand(rest);
    case "admin":
      return (await import("./cli/admin.js")).runAdminCommand(rest, registryTables);
    default: {
      const usage = `Usage: kinora-server <command>\n\n${serverUsageLines().join("\n")}\n`;
      if (command === "help" || command === "--help" || command === "-h") {
        process.stdout.write(usage);
        return 0;
      }
      const known = command === undefined ? "" : `Unknown command "${command}".\n\n`;
      process.stderr.write(`${known}${usage}`);
      return 2;
    }
  }
}

/** `serve`: the API and its in-process workers, until SIGINT or SIGTERM. */
async function serve(): Promise<number> {
  const config = (await import("./config.js")).loadConfig();
  const steps = await import("./cli/startup-steps.js");
  const { startupStep } = steps;
  steps.announceStart(config);
  const isNewEmbedded =
    !config.databaseUrl && !existsSync(path.join(config.dataDir, "pglite", "PG_VERSION"));
  if (isNewEmbedded) await startupStep("preparing the database template", prepareTemplate());
  // The database opens while the rest of the service loads (see server-database.ts).
  const opening = startupStep(
    "opening the database",
    (await import("./server-database.js")).openServerDatabase(config),
  );
  opening.catch(() => {}); // awaited by startServer; this only keeps it from being "unhandled"
  const { startServer } = await startupStep("loading the service", import("./server.js"));
  // Its own time only: startServer first waits for the database opened beside it.
  const server = await startupStep(
    "starting the service",
    startServer(config, opening),
    undefined,
    {
      after: { work: opening, what: "the database was open" },
    },
  );
  steps.announceReady();
  process.stdout.write(steps.listeningBanner(server));
  const stop = () => {
    server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return -1;
}

/**
 * A new data directory starts from the migrated template (see db/pglite-template.ts). A
 * checkout's build makes it at `npm install`; an installed @kinora/server makes it here, on its
 * first start, in its cache directory. Where that cannot be written, the database is created
 * without it (initdb and the migrations: slower, the same result).
 */
async function prepareTemplate(): Promise<void> {
  try {
    await (await import("./db/pglite-template.js")).ensureTemplate();
  } catch (err) {
    process.stderr.write(
      `kinora: could not save the database template (${err instanceof Error ? err.message : String(err)}); creating the database without it\n`,
    );
  }
}

/**
 * The line a command that failed prints: a configuration or data-directory problem as its own
 * message, anything else with its stack.
 */
export function failureMessage(err: unknown): string {
  // Matched by name: importing their modules here would load the server's config for every command.
  if (!(err instanceof Error)) return String(err);
  const expected = ["ConfigError", "DataDirLockedError", "MissingMediaError"].includes(err.name);
  if (expected) return err.message;
  return err.stack ?? err.message;
}

/** `kinora-server …`: runs the command and ends the process with its exit code. */
export function serverMain(argv: string[]): void {
  exitWhenDone("kinora-server", runServerCommand(argv), failureMessage);
}

/** Every job kind's tables in registry order (for `admin migrate`; loads the kinds only then). */
async function registryTables(): Promise<readonly string[]> {
  const [{ JOB_KINDS }, { kindTables }] = await Promise.all([
    import("./job-kinds.js"),
    import("./kinds/kind.js"),
  ]);
  return kindTables(JOB_KINDS);
}

/**
 * The user's side of `kinora`: commands that talk to any kinora server over its public HTTP
 * API only. Parses the command line (node:util parseArgs), builds the context, runs the
 * command, and turns whatever stopped it into one message and one exit code.
 */
import { parseArgs } from "node:util";
import { type ClientCommand, COMMON_OPTIONS, type ParsedArgs } from "./command.js";
import { loginCommand, logoutCommand } from "./commands/account.js";
import { clipCommand } from "./commands/clip.js";
import { cancelCommand, getCommand, jobsCommand } from "./commands/jobs.js";
import { keysCommand } from "./commands/keys.js";
import { restoreCommand } from "./commands/restore.js";
import { topupCommand, walletCommand } from "./commands/wallet.js";
import { buildContext } from "./context.js";
import type { ClientEnv } from "./env.js";
import { EXIT } from "./exit-codes.js";
import { CliFailure, Interrupted, UsageError } from "./failures.js";
import { Output, type Streams } from "./output.js";

const CLIENT_COMMANDS: readonly ClientCommand[] = [
  loginCommand,
  logoutCommand,
  walletCommand,
  topupCommand,
  keysCommand,
  restoreCommand,
  clipCommand,
  jobsCommand,
  getCommand,
  cancelCommand,
];

const byName = new Map(CLIENT_COMMANDS.map((c) => [c.name, c]));

/** The command called `name`, if it is a client command. */
export function findClientCommand(name: string | undefined): ClientCommand | undefined {
  return name === undefined ? undefined : byName.get(name);
}

/** One line per client command, for `kinora --help`. */
export function clientUsageLines(): string[] {
  return CLIENT_COMMANDS.map((c) => `  ${c.name.padEnd(34)} ${c.summary}`);
}

/** A negative number is a value, not an option: `kinora admin credit wal_… -500` debits. */
const NEGATIVE = /^-\d/;
const ESCAPE = "\0";
const unescaped = <T>(v: T): T =>
  (typeof v === "string" && v.startsWith(ESCAPE) ? v.slice(1) : v) as T;

/**
 * The command line by node:util parseArgs (strict: an unknown option is a usage error), with
 * the options every command takes; `kinora worker` parses its own through this too.
 */
export function parseCommandLine(
  command: Pick<ClientCommand, "name" | "options">,
  argv: string[],
): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args: argv.map((a) => (NEGATIVE.test(a) ? `${ESCAPE}${a}` : a)),
      options: { ...COMMON_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    return {
      values: Object.fromEntries(
        Object.entries(values).map(([k, v]) => [k, unescaped(v)]),
      ) as ParsedArgs["values"],
      positionals: positionals.map(unescaped),
    };
  } catch (err) {
    // Node's text goes on about "--" for positionals starting with a dash; the first sentence says it.
    const first = (err as Error).message.split(". To specify")[0]?.replace(/\.$/, "");
    throw new UsageError(`${first}. See kinora ${command.name} --help.`);
  }
}

/** What runClientCommand needs from its caller: the environment, and streams for tests. */
interface RunOptions {
  env: ClientEnv;
  streams?: Streams;
}

/**
 * Runs a client command to its exit code. The first Ctrl-C aborts the command's signal so it
 * can tidy up (cancel an unfinished upload's job); a second one exits at once.
 */
export async function runClientCommand(
  command: ClientCommand,
  argv: string[],
  opts: RunOptions,
): Promise<number> {
  const streams = opts.streams ?? {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  };
  const json = argv.includes("--json");
  const out = new Output(streams, json);
  const interrupt = new AbortController();
  const onSigint = () => {
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
    interrupt.abort(new Interrupted());
  };
  process.on("SIGINT", onSigint);
  try {
    const args = parseCommandLine(command, argv);
    if (args.values.help) {
      streams.stdout.write(`${command.help}\n`);
      return EXIT.ok;
    }
    const ctx = await buildContext(args, out, opts.env, interrupt.signal, command.credential);
    return await command.run(ctx);
  } catch (err) {
    return report(out, command, err, interrupt.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function report(out: Output, command: ClientCommand, err: unknown, signal: AbortSignal): number {
  const failure =
    err instanceof CliFailure
      ? err
      : signal.aborted
        ? new Interrupted()
        : new CliFailure(
            `unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
            EXIT.failed,
          );
  if (out.json) {
    const doc = {
      error: { detail: failure.message, exit_code: failure.exitCode, ...failure.fields },
    };
    out.streams.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }
  out.streams.stderr.write(`kinora ${command.name}: ${failure.message}\n`);
  return failure.exitCode;
}

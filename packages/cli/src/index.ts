/**
 * The user's side of `kinora`: commands that talk to any kinora server over its public HTTP
 * API only. Parses the command line (node:util parseArgs), builds the context, runs the
 * command, and turns whatever stopped it into one message and one exit code.
 */
import { parseArgs } from "node:util";
import {
  type ClientCommand,
  type ClientContext,
  COMMON_OPTIONS,
  type ParsedArgs,
} from "./command.js";
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

/** A negative amount is a value, not an option: `kinora admin credit wal_… -5` (or `-$5`) debits. */
const NEGATIVE = /^-\$?\d/;
const ESCAPE = "\0";
const unescaped = <T>(v: T): T =>
  // cast: unescaping keeps the value's kind (a string stays a string, a list a list)
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
      // cast: the same keys as parseArgs gave, each value unescaped in place
      values: Object.fromEntries(
        Object.entries(values).map(([k, v]) => [k, unescaped(v)]),
      ) as ParsedArgs["values"],
      positionals: positionals.map(unescaped),
    };
  } catch (err) {
    // Node's text goes on about "--" for positionals starting with a dash; the first sentence says it.
    // cast: parseArgs throws a TypeError with a message (ERR_PARSE_ARGS_*)
    const first = (err as Error).message.split(". To specify")[0]?.replace(/\.$/, "");
    throw new UsageError(`${first}. See kinora ${command.name} --help.`);
  }
}

/** What runClientCommand needs from its caller: the environment, and streams for tests. */
interface RunOptions {
  env: ClientEnv;
  streams?: Streams;
}

/** How long `--help` waits for the server's part of a help text (prices) before going without. */
const LIVE_HELP_TIMEOUT_MS = 3000;

/**
 * Runs a client command to its exit code. The first Ctrl-C aborts the command's signal so it
 * can tidy up (cancel an unfinished upload's job); a second one exits at once. Whatever stops
 * it is printed as one message — never a stack trace (KINORA_DEBUG=1 adds it) — and, after a
 * charge, what became of the money.
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
  let ctx: ClientContext | undefined;
  const onSigint = () => {
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
    interrupt.abort(new Interrupted());
  };
  // An error thrown where no await catches it (a timer, a stream's event) would otherwise end
  // the process with Node's stack trace, after a charge and without a word about the money.
  const onStray = (err: unknown) => {
    // A bar may be mid-line with the cursor hidden: end its line and show the cursor again.
    if (out.interactive) streams.stderr.write("\n\x1b[?25h");
    const code = report(out, command, err, interrupt.signal, ctx, opts.env.debug);
    process.exit(code);
  };
  process.on("SIGINT", onSigint);
  process.on("uncaughtException", onStray);
  process.on("unhandledRejection", onStray);
  try {
    const args = parseCommandLine(command, argv);
    if (args.values.help) {
      streams.stdout.write(`${await helpText(command, args, out, opts.env)}\n`);
      return EXIT.ok;
    }
    ctx = await buildContext(args, out, opts.env, interrupt.signal, command.credential);
    return await command.run(ctx);
  } catch (err) {
    return report(out, command, err, interrupt.signal, ctx, opts.env.debug);
  } finally {
    process.off("SIGINT", onSigint);
    process.off("uncaughtException", onStray);
    process.off("unhandledRejection", onStray);
  }
}

/** The command's help: asked of the server when part of it is the server's (prices). */
async function helpText(
  command: ClientCommand,
  args: ParsedArgs,
  out: Output,
  env: ClientEnv,
): Promise<string> {
  if (!command.liveHelp) return command.help;
  try {
    const signal = AbortSignal.timeout(LIVE_HELP_TIMEOUT_MS);
    const ctx = await buildContext(args, out, env, signal, command.credential);
    return await command.liveHelp(ctx);
  } catch {
    // A wrong --server, no answer, an odd answer: the help still helps without the server.
    return command.help;
  }
}

/** An error no command worded: its message (its stack only under KINORA_DEBUG). */
function unexpected(err: unknown, debug: boolean): string {
  const text =
    err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err);
  return `unexpected error: ${text.replace(/\.$/, "")}.`;
}

function report(
  out: Output,
  command: ClientCommand,
  err: unknown,
  signal: AbortSignal,
  ctx: ClientContext | undefined,
  debug: boolean,
): number {
  const failure =
    err instanceof CliFailure
      ? err
      : signal.aborted
        ? new Interrupted()
        : new CliFailure(unexpected(err, debug), EXIT.failed);
  // Set until the command has told what became of the money (then it clears it).
  const money = ctx?.charge.note ? ` ${ctx.charge.note}` : "";
  const message = `${failure.message}${money}`;
  if (out.json) {
    const doc = { error: { detail: message, exit_code: failure.exitCode, ...failure.fields } };
    out.streams.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }
  out.streams.stderr.write(`kinora ${command.name}: ${message}\n`);
  return failure.exitCode;
}

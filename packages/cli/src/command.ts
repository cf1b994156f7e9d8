/**
 * The shape of a client command and what it is handed to run: the parsed command line, where
 * to print, the API client for the chosen server and key, and the Ctrl-C signal.
 */
import type { ParseArgsConfig } from "node:util";
import type { ClientEnv } from "./env.js";
import type { ApiClient } from "./http.js";
import type { Output } from "./output.js";

/** The options a command takes, as node:util parseArgs declares them. */
type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;

/** A command line after parseArgs: the positionals and the option values. */
export interface ParsedArgs {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

/**
 * Where the person's money stands while a command runs. A command that charges sets `note` to
 * one sentence saying what became of the price if it stopped now ("rj_… was paid ($4.99) and
 * keeps running on the server…"), and clears it once a message has said so (a refund after a
 * failed upload, a failed job, the result saved). Whatever else stops the command — a refusal,
 * Ctrl-C, an unexpected error, even one thrown from a timer — ends with that sentence, so a
 * person is never left wondering whether they paid.
 */
export interface ChargeState {
  note?: string;
}

/** What a command runs with. */
export interface ClientContext {
  args: ParsedArgs;
  out: Output;
  api: ApiClient;
  env: ClientEnv;
  /** Path of the config file `kinora login` writes. */
  configPath: string;
  /** Where the server came from: flag, environment, config or default (for messages). */
  serverSource: "flag" | "env" | "config" | "default";
  /** Aborted by the first Ctrl-C; the command decides what to tidy up. */
  signal: AbortSignal;
  /** What became of a price charged by this command, for failures it did not word. */
  charge: ChargeState;
}

/** A command of `kinora`: its name, help, options and what it does. */
export interface ClientCommand {
  name: string;
  /** One line for `kinora --help`. */
  summary: string;
  /** Full `kinora <name> --help` text, with examples. */
  help: string;
  options: OptionSpecs;
  /**
   * The help text as it stands on the chosen server (e.g. its prices), when it has parts the
   * server decides; `help` is what is shown when the server cannot be asked.
   */
  liveHelp?(ctx: ClientContext): Promise<string>;
  /**
   * The credential sent: the person's key (default: KINORA_KEY or the one `kinora login`
   * saved), or the operator's ADMIN_TOKEN — which goes only to the server named by --server
   * (default the local one), never to a server saved for the person's key.
   */
  credential?: "key" | "admin";
  run(ctx: ClientContext): Promise<number>;
}

/** Options every client command takes. */
export const COMMON_OPTIONS: OptionSpecs = {
  server: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** The help text's last part, the same for every command: common options and exit codes. */
export const COMMON_HELP = `Common options:
  --server URL   the kinora server (default: KINORA_SERVER, then the one saved by
                 kinora login, then http://127.0.0.1:8080)
  --json         print one JSON document on stdout, for scripts
  -h, --help     this help

Exit codes: 0 done · 1 the server said no · 2 usage · 3 refused or not enough funds
(nothing charged) · 4 server error or unreachable · 130 interrupted (Ctrl-C).`;

/** A string option's value, if given. */
export function stringArg(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

/** A boolean option's value. */
export function flagArg(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}

/** Small JSON client the CLI commands share: one place for --server, auth and error printing. */
import {
  type ErrorAnswer,
  EXIT,
  type ExitCode,
  exitCodeForNetworkFailure,
  exitCodeForResponse,
} from "./client/exit-codes.js";

export interface CliOptions {
  server: string;
  token?: string;
}

/**
 * A command that stops: its message, and the exit code the `kinora` client would give —
 * usage (2) for a wrong command line, the error table's `exit` for a server's refusal.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Pulls `--name value` flags out of argv; returns the positional arguments left. */
export function parseFlags(
  argv: string[],
  names: string[],
): { args: string[]; flags: Record<string, string> } {
  const args: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const name = arg.startsWith("--") ? arg.slice(2).split("=")[0] : undefined;
    if (name && names.includes(name)) {
      const inline = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : undefined;
      const value = inline ?? argv[++i];
      if (value === undefined) throw new CliError(`--${name} needs a value`);
      flags[name] = value;
    } else if (arg.startsWith("--")) {
      throw new CliError(`Unknown option ${arg}`);
    } else args.push(arg);
  }
  return { args, flags };
}

export async function callJson(
  opts: CliOptions,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const url = `${opts.server.replace(/\/+$/, "")}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    throw new CliError(
      `Could not reach ${opts.server} (${(err as Error).message}); is kinora running? Use --server URL.`,
      exitCodeForNetworkFailure(),
    );
  }
  const text = await res.text();
  let data: unknown = text;
  try {
    data = JSON.parse(text);
  } catch {
    // Not JSON: keep the text for the message.
  }
  if (!res.ok) {
    const body: ErrorAnswer = data && typeof data === "object" ? (data as ErrorAnswer) : {};
    const detail = body.detail ?? text;
    throw new CliError(`${res.status}: ${detail}`, exitCodeForResponse(res.status, body));
  }
  return data;
}

/**
 * What a client command throws to stop: each carries the message to print and its exit code,
 * so the dispatcher prints and exits in one place.
 */
import {
  type ErrorAnswer,
  EXIT,
  type ExitCode,
  exitCodeForNetworkFailure,
  exitCodeForResponse,
} from "./exit-codes.js";

/** Stops a command: the message to print and the exit code (subclasses say why). */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** Extra fields for the `--json` error document. */
    readonly fields: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "CliFailure";
  }
}

/** A wrong command line (exit 2); the message says what to type instead. */
export class UsageError extends CliFailure {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = "UsageError";
  }
}

/** The server answered with an error body: its `detail` is the message. */
export class ApiFailure extends CliFailure {
  constructor(
    readonly status: number,
    readonly body: ErrorAnswer,
  ) {
    super(body.detail ?? `The server answered HTTP ${status}.`, exitCodeForResponse(status, body), {
      status,
      ...body,
    });
    this.name = "ApiFailure";
  }
}

/** No answer at all: connection refused or reset, DNS, time-out. */
export class NetworkFailure extends CliFailure {
  constructor(message: string) {
    super(message, exitCodeForNetworkFailure(), { network: true });
    this.name = "NetworkFailure";
  }
}

/** Ctrl-C: the message says what happened to any job in flight. */
export class Interrupted extends CliFailure {
  constructor(message = "Interrupted.") {
    super(message, EXIT.interrupted, { interrupted: true });
    this.name = "Interrupted";
  }
}

/** Whether an error is the AbortError of a request or sleep cut short by a signal. */
export function isAbort(err: unknown): boolean {
  // cast: any thrown value; only its name and code are compared, absent ones are fine
  const e = err as { name?: string; code?: string } | null;
  return e?.name === "AbortError" || e?.code === "ABORT_ERR" || err instanceof Interrupted;
}

/** Worth trying again: no answer, or a server error (a deploy, an overloaded node), or 429. */
export function isTransient(err: unknown): boolean {
  if (err instanceof NetworkFailure) return true;
  if (err instanceof ApiFailure) return err.status >= 500 || err.status === 429;
  return !(err instanceof CliFailure) && !isAbort(err);
}

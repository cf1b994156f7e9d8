/**
 * The one place that turns a server's answer into the client's exit code, so scripts can tell
 * "fix your command" from "top up" from "the server is broken". Driven by the error body's
 * machine-readable `code` when the server sends one (the `exit` column of the server's table),
 * and by the status and the spec's flags (`needs_topup`, `over_limit`, `refused`) when it does
 * not. `kinora admin` exits by the same function.
 */

import { ERROR_TABLE, type ErrorBody, type ErrorCode } from "@kinora/client";

/** Exit codes of every client command. */
export const EXIT = {
  ok: 0,
  /** The server said no for another reason (not found, conflict, bad input it caught). */
  failed: 1,
  /** The command line is wrong, or it would need a prompt with no terminal to ask on. */
  usage: 2,
  /** Refused: not enough balance or allowance, or the content rule. Nothing was charged. */
  refused: 3,
  /** The server failed (5xx), could not be reached, or a job failed on it. */
  server: 4,
  /** Ctrl-C (128 + SIGINT), as shells report it. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * An error answer as the client holds it: kinora's error body (the SDK's ErrorBody), every field
 * optional because storage links (S3) and proxies answer without them. A `code` is trusted only
 * once it is a row of the SDK's table (generated from the server's).
 */
export type ErrorAnswer = Partial<ErrorBody>;

/** Whether a value is a code of the server's table, as this client knows it. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_TABLE, value);
}

/** status + body → exit code: the server's error table first (its `exit` column); without a
 * known code, 402 and 422-refused → 3, 5xx → 4, any other 4xx → 1. */
export function exitCodeForResponse(status: number, body: ErrorAnswer = {}): ExitCode {
  if (isErrorCode(body.code)) return ERROR_TABLE[body.code].exit;
  if (status === 402 || body.needs_topup || body.over_limit) return EXIT.refused;
  if (status === 422 && body.refused) return EXIT.refused;
  if (status >= 500) return EXIT.server;
  return EXIT.failed;
}

/** A request that never got an answer (refused connection, reset, time-out). */
export function exitCodeForNetworkFailure(): ExitCode {
  return EXIT.server;
}

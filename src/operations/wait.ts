/**
 * How a read waits, the same on both surfaces (REST `?wait=&until=`, MCP `wait_seconds` and
 * `until`): up to the caller's seconds for a new status — or any progress report, when the
 * caller asks — reporting progress meanwhile where the caller listens (MCP progressToken).
 */
import type { CallContext } from "../api/operation.js";
import type { WaitUntil } from "../jobs/watch.js";

export function waitOptions(
  input: { wait_seconds?: number | undefined; until?: WaitUntil | undefined },
  ctx: CallContext,
) {
  const report = ctx.progress;
  return {
    waitMs: (input.wait_seconds ?? 0) * 1000,
    signal: ctx.signal,
    until: input.until,
    onProgress: report && ((p: number) => report(p, `${Math.round(p * 100)}% done`)),
  };
}

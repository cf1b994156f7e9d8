/**
 * Before a worker claims anything it asks each executor what this machine lacks to run its kind
 * (the media packages are optional dependencies of @kinora/server: an API-only node installs
 * without them). A kind it cannot run is not claimed: its jobs wait for a worker that can,
 * instead of failing one attempt after another with a stack trace. What is missing is said once,
 * at start, in the executor's own words (which name what to install).
 */
import type { Executor } from "../jobs/work.js";
import type { Logger } from "../logger.js";

/** Kinds this worker cannot run, each with the sentences saying what is missing. */
export interface UnmetKind {
  kind: string;
  needs: string[];
}

/** The executors this machine can run, and the kinds it cannot with what they lack. */
export function sortByReadiness(executors: readonly Executor[]): {
  ready: Executor[];
  unmet: UnmetKind[];
} {
  const ready: Executor[] = [];
  const unmet: UnmetKind[] = [];
  for (const executor of executors) {
    const needs = executor.unmetNeeds?.() ?? [];
    if (needs.length === 0) ready.push(executor);
    else unmet.push({ kind: executor.kind, needs });
  }
  return { ready, unmet };
}

/** One line per kind that cannot run: "<kind> jobs cannot run here: <what is missing>". */
export function describeUnmet(unmet: readonly UnmetKind[]): string[] {
  return unmet.map(({ kind, needs }) => `${kind} jobs cannot run here: ${needs.join(" ")}`);
}

/**
 * The executors a worker may claim for; each kind it cannot run is logged as an error (with
 * what it lacks) and left to other workers.
 */
export function readyExecutors(executors: readonly Executor[], log: Logger): Executor[] {
  const { ready, unmet } = sortByReadiness(executors);
  for (const line of describeUnmet(unmet)) log.error(`${line} (this worker leaves them queued)`);
  return ready;
}

/** A worker that can run none of its kinds; the message says what each one lacks, a line each. */
export class NothingToRunError extends Error {
  constructor(readonly unmet: readonly UnmetKind[]) {
    super(`this machine can run no kind of job:\n  ${describeUnmet(unmet).join("\n  ")}`);
    this.name = "NothingToRunError";
  }
}

/**
 * The executors a dedicated worker (`kinora worker`) runs: as readyExecutors, but a worker that
 * can run nothing throws NothingToRunError instead of idling.
 */
export function executorsOrExplain(executors: readonly Executor[], log: Logger): Executor[] {
  const { unmet } = sortByReadiness(executors);
  if (unmet.length === executors.length && unmet.length > 0) throw new NothingToRunError(unmet);
  return readyExecutors(executors, log);
}

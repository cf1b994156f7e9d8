/**
 * A job kind as composition sees it: one registry entry (src/job-kinds.ts) holding the kind's
 * definition, the executor a worker runs for it, and its feature. Everything below composition
 * — the job engine, the worker API, storage keys, the upload guard, metrics, the work source —
 * receives the definitions and names no kind. The helpers here give every kind's feature the
 * same engine parts: its queue and its retention sweeper.
 */
import type { Config } from "../config.js";
import type { BackgroundTask, FeatureFactory, Platform } from "../feature.js";
import { jobEngineDeps } from "../feature.js";
import type { JobDefinition } from "../jobs/definition.js";
import { createJobQueue, type DefinedQueue } from "../jobs/queue.js";
import { sweepJobs } from "../jobs/retention.js";
import type { Executor } from "../jobs/work.js";
import { startPeriodic } from "../services/periodic.js";
import type { FetchLike } from "../workers/transfer.js";

/** What a worker process may change about how an executor reaches the world (tests). */
export interface ExecutorSeams {
  /** How inputs are fetched and outputs sent (tests route kinora URLs in-process). */
  fetch?: FetchLike;
}

/** One job kind: the only place composition learns that a kind exists. */
export interface JobKindEntry {
  /** What the engine and every lower layer read about the kind. */
  // biome-ignore lint/suspicious/noExplicitAny: the registry holds kinds of different rows and params
  definition: JobDefinition<any, any>;
  /**
   * The executor this machine's configuration asks for: what `kinora worker` runs for the kind
   * (the kind's feature builds the in-process one of `kinora serve` the same way, with its seams).
   */
  executor(config: Config, seams?: ExecutorSeams): Executor;
  /** The kind's feature for `kinora serve`: its routes, its queue, in-process executor, sweeper. */
  feature(): FeatureFactory;
  /**
   * A job of the kind as its REST read shows it (webhook payloads show the same object);
   * absent: payloads show the engine's columns.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each kind's view takes its own row
  view?(p: Platform): (row: any) => Promise<unknown>;
}

/**
 * The kind's queue on this platform (claims, reports, lease recovery); the kind joins the
 * platform's list the queue estimate reads.
 */
export function kindQueue(def: JobEntryDefinition, p: Platform): DefinedQueue {
  p.jobKinds.register(def);
  return createJobQueue(def, jobEngineDeps(p));
}

/** Runs the kind's retention rules every `everyMs` (and once at start). */
export function startSweeper(
  def: JobEntryDefinition,
  p: Platform,
  everyMs = 60_000,
): BackgroundTask {
  const deps = jobEngineDeps(p);
  const pass = async () => {
    const counts = await sweepJobs(def, deps);
    if (counts.some((c) => c > 0)) deps.log.info("retention sweep", { kind: def.kind, counts });
  };
  return startPeriodic(everyMs, pass, deps.log, `retention sweep of ${def.kind}`);
}

type JobEntryDefinition = JobKindEntry["definition"];

/** The executors of every kind, for `kinora worker`: one per registry entry. */
export function workerExecutors(
  kinds: readonly JobKindEntry[],
  config: Config,
  seams?: ExecutorSeams,
): Executor[] {
  return kinds.map((k) => k.executor(config, seams));
}

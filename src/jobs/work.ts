/**
 * The worker seam. Each job kind has a JobQueue on the server side (made by the job engine,
 * src/jobs/): claim under a lease, heartbeat, complete, fail, release, and recover lapsed
 * leases — every state change a conditional update through that kind's transition table. A worker runs Executors that turn a
 * WorkItem into a result using only URLs (download input, PUT output), so the same loop runs
 * in-process (DbWorkSource) or on another machine over the HTTP worker API (HttpWorkSource).
 */

import type { z } from "zod";

/** The name of a kind a JobDefinition declares (src/job-kinds.ts lists them). */
export type JobKind = string;

/** A kind's work-item parameters as they cross the wire (its definition's schema types them). */
export type WorkParams = Record<string, unknown>;

/** Everything a worker needs to run one attempt; serialisable (it crosses the HTTP worker API). */
export interface WorkItem<P extends WorkParams = WorkParams> {
  kind: JobKind;
  jobId: string;
  attempt: number;
  /** The lease ends then unless heartbeats extend it. ISO timestamp. */
  leaseExpiresAt: string;
  /**
   * The server's lease length: the worker heartbeats well within it (its own JOB_LEASE_MS is
   * irrelevant — a remote worker follows the server it works for).
   */
  leaseMs: number;
  /** Where to GET the input (video or image). */
  inputUrl: string;
  /** Where to PUT the result, with the headers to send. */
  outputUrl: string;
  outputHeaders: Record<string, string>;
  /** Kind-specific parameters (quality, declared duration, prompt, size, seed…). */
  params: P;
}

/**
 * Facts an attempt learned before it ended, which the server acts on at once (a restore's
 * measured length: the price difference goes back then, not when the job ends).
 */
export type WorkNote = Record<string, unknown>;

/** What a successful attempt reports back; kind-specific fields go in `meta`. */
export interface WorkResult {
  outputBytes: number;
  meta: Record<string, unknown>;
}

/** Why a work item failed, and whether it may be tried again. */
export interface WorkFailure {
  /** One user-facing sentence; becomes the job's `error`. */
  message: string;
  /**
   * "retry": may succeed on another attempt (crash, timeout, engine unavailable).
   * "final": the input itself is the problem (corrupt, too long, refused) — fail and refund now.
   * "refused": the content rule refused the input (clips) — status `refused`, refunded.
   * "too_long": the real length is much longer than declared (restores).
   */
  kind: "retry" | "final" | "refused" | "too_long";
  code?: string;
}

/** Where workers get work and report back. */
export interface WorkSource {
  claim(kinds: JobKind[], workerId: string, waitMs: number): Promise<WorkItem | null>;
  /** Extends the lease and records progress (0..1); false when the lease was lost (stop work). */
  heartbeat(item: WorkItem, workerId: string, progress: number | null): Promise<boolean>;
  /** Tells the server what the attempt learned so far; false when the lease was lost. */
  note(item: WorkItem, workerId: string, note: WorkNote): Promise<boolean>;
  complete(item: WorkItem, workerId: string, result: WorkResult): Promise<void>;
  fail(item: WorkItem, workerId: string, failure: WorkFailure): Promise<void>;
  /** Hands the job back without using up an attempt (the worker is shutting down). */
  release(item: WorkItem, workerId: string): Promise<void>;
}

/** What a worker's report did: applied, ignored (another worker holds the job now), or no such job. */
export type ReportOutcome = "ok" | "lease_lost" | "not_found";

/** Server side of one job kind (the job engine makes one per JobDefinition). */
export interface JobQueue {
  readonly kind: JobKind;
  /** When the oldest claimable job was queued; null when none waits. */
  oldestWaiting(): Promise<Date | null>;
  claim(workerId: string, leaseMs: number): Promise<WorkItem | null>;
  heartbeat(
    jobId: string,
    workerId: string,
    leaseMs: number,
    progress: number | null,
  ): Promise<ReportOutcome>;
  note(jobId: string, workerId: string, note: WorkNote): Promise<ReportOutcome>;
  complete(jobId: string, workerId: string, result: WorkResult): Promise<ReportOutcome>;
  fail(jobId: string, workerId: string, failure: WorkFailure): Promise<ReportOutcome>;
  release(jobId: string, workerId: string): Promise<ReportOutcome>;
  /** Jobs whose lease lapsed: requeue, or after the last attempt fail and refund. Returns count. */
  recoverLapsedLeases(): Promise<number>;
}

/** What an executor gets besides the item: a signal, progress reporting, scratch space. */
export interface ExecuteContext {
  signal: AbortSignal;
  /** Report progress 0..1; cheap to call often (the loop throttles heartbeats). */
  progress(fraction: number): void;
  /** A scratch directory for this attempt, removed afterwards. */
  workDir: string;
  /**
   * Tells the server what the attempt learned (see WorkNote). Never throws: a note that does
   * not arrive is logged, and the kind applies the same facts when the attempt completes.
   */
  note(note: WorkNote): Promise<void>;
}

/**
 * Worker side of one job kind: runs the engine. Throws WorkError for known failures. `params`
 * is the kind's schema (its definition's): the worker loop parses each item's params with it
 * once, so `execute` receives them typed.
 */
export interface Executor<P extends WorkParams = WorkParams> {
  readonly kind: JobKind;
  readonly params: z.ZodType<P>;
  execute(item: WorkItem<P>, ctx: ExecuteContext): Promise<WorkResult>;
  /**
   * What this machine lacks to run the kind (one sentence each, naming what to install: an
   * optional package, a program); empty or absent when it can. Asked before claiming work.
   */
  unmetNeeds?(): string[];
}

/**
 * Thrown by an executor for a known failure (retry, final or refused). `detail` is what the
 * worker's log gets beside it (an engine's own output); it never leaves the worker.
 */
export class WorkError extends Error {
  constructor(
    readonly failure: WorkFailure,
    readonly detail?: string,
  ) {
    super(failure.message);
    this.name = "WorkError";
  }
}

/** NOTIFY channel a job kind signals when a job becomes claimable. */
export const JOBS_CHANNEL = "kinora_jobs";

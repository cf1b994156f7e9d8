/**
 * What a job kind tells the job engine: its table and statuses, its transition table, which
 * status waits for a worker and which runs under a lease, how a claimed row becomes a WorkItem
 * (with params its schema checks), how it is refunded, what a finished or failed attempt
 * writes, where its files live and when they may be uploaded, and its retention rules.
 * Restores and clips are two of these (kinds/restore/services/definition.ts,
 * kinds/clips/services/definition.ts); a new kind is one more, listed in src/job-kinds.ts.
 */

import type { Kysely, RawBuilder } from "kysely";
import type { z } from "zod";
import type { DB } from "../db/schema.js";
import type { KinoraEvents } from "../domain/events.js";
import type { EngineMove, Move } from "../domain/job-lifecycle/moves.js";
import type { Logger } from "../logger.js";
import type { Signer } from "../signing.js";
import type { BlobStore } from "../storage/blob-store.js";
import type { JobFileLayout } from "../storage/keys.js";
import type { ClassRates } from "./queue-estimate/model.js";
import type { WorkFailure, WorkItem, WorkNote, WorkParams, WorkResult } from "./work.js";

/** Columns every job table has (the engine reads and writes only these, plus `set` fields). */
export interface JobColumns {
  id: string;
  status: string;
  wallet_id: string | null;
  agent_key_id: string | null;
  amount_cents: number;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  progress: number | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  queued_at: Date | null;
  started_at: Date | null;
  /** When and by which worker the latest attempt was claimed (kept after the job ends). */
  claimed_at: Date | null;
  claimed_by: string | null;
  finished_at: Date | null;
  expires_at: Date | null;
  files_deleted_at: Date | null;
}

/** The database handle the engine takes (a transaction too). */
export type Db = Kysely<DB>;

/** Column values to write; a RawBuilder is written as SQL (e.g. `attempts - 1`). */
export type JobFields = Record<string, unknown | RawBuilder<unknown>>;

/** What the engine and the definitions' hooks may use. */
export interface JobEngineDeps {
  db: Db;
  clock: () => Date;
  log: Logger;
  storage: BlobStore;
  /** HMAC key for the output tokens of work items. */
  signer: Signer;
  /** Base of the URLs in work items (the worker API's output ticket). */
  publicUrl: string;
  retentionHours: number;
  /** Wakes waiting workers (this process and others, by NOTIFY). */
  notifyJobs(): Promise<void>;
  /** Claims, retries, lapses, finishes and refunds are reported here (metrics). */
  events?: KinoraEvents;
  /**
   * Another kind's definition by name, for a job handed to child units (./children.ts): the
   * parent names its children's kind, the children their parent's. Absent: no hand-offs.
   */
  definition?(kind: string): JobDefinition | undefined;
}

/** How far a parent's child units are: done, running (a worker holds them), waiting. */
export interface UnitCounts {
  done: number;
  running: number;
  waiting: number;
}

/** What stopping a parent's child units needs: the rows, the clock, the files, the log. */
export type ChildStopDeps = Pick<JobEngineDeps, "db" | "clock" | "log" | "storage">;

/** What a parent's `finish` answers to hand its job to child units (./children.ts). */
export interface HandOff {
  /** The child units' job kind (its definition has `spawn`). */
  childKind: string;
  /** What `spawn` reads: plain data. */
  units: unknown;
  /** Fields of the parent written with the hand-off (e.g. progress so far). */
  set?: JobFields;
}

/** Files expire, and jobs with them, when a rule's deadline column passes. */
interface RetentionRule<Row extends JobColumns> {
  /** Rows in these statuses… */
  statuses: readonly string[];
  /** …whose `column` is before `before(now)` (and, for a rule without a move, whose files remain). */
  due: { column: keyof Row & string; before: (now: Date) => Date };
  /** The move to make (conditional on the deadline still being past); none: delete files only. */
  move?: string;
  set?: (row: Row, now: Date) => JobFields;
}

/** Told about a refund's ledger entry (metrics). */
export type RefundEvents = Pick<KinoraEvents, "ledgerEntry">;

type WorkItemBody<P extends WorkParams = WorkParams> = Pick<
  WorkItem<P>,
  "inputUrl" | "outputUrl" | "outputHeaders" | "params"
>;

/** When one of a kind's files may be uploaded through a link kinora handed out. */
interface UploadRule {
  /** The job must be in one of these statuses when the upload arrives. */
  statuses: readonly string[];
  /** A link takes one upload (a caller's input); otherwise a retry may overwrite (a result). */
  once: boolean;
  /**
   * A worker stores the file it fetched from the caller's URL: also accepted in these statuses,
   * but only for a job whose `sourceColumn` is set (a job the caller uploads to never is).
   */
  fetched?: { statuses: readonly string[]; sourceColumn: string };
}

/** How a kind's work is measured: its work classes, amounts and default speeds. */
export interface QueueMeasure<Row extends JobColumns = JobColumns> {
  /** SQL for a job's work class (restore: its quality; clip: its size), on the table `alias`. */
  classSql(alias: string): RawBuilder<string>;
  /** SQL for a job's amount of work (seconds of video or of clip), on the table aliased `alias`. */
  amountSql(alias: string): RawBuilder<number>;
  /** The same for a finished job (may prefer a measured value). */
  doneAmountSql(alias: string): RawBuilder<number>;
  /**
   * SQL: the job's last attempt succeeded, so finished_at - claimed_at is a run time to learn
   * from (backed by an index on finished_at with the same condition).
   */
  succeededSql(alias: string): RawBuilder<boolean>;
  /** A row's class and amount (the same values as amountSql). */
  work(row: Row): { workClass: string; amount: number };
  /** Run seconds per unit of work by class, until this deployment has measured its own. */
  defaults: ClassRates;
}

/**
 * What a job kind tells the engine: table, statuses, moves, params, files, refunds and retention.
 */
export interface JobDefinition<
  Row extends JobColumns = JobColumns,
  P extends WorkParams = WorkParams,
> {
  kind: string;
  table: string;
  /** How messages name one job of the kind ("restore job", "clip"). */
  noun: string;
  /**
   * The least one job of the kind costs: an agent key with less left can buy nothing of it
   * (key.limit_reached is sent when a charge leaves a key below every kind's).
   */
  cheapestCents: number;
  /** Every status of the kind (domain/<kind>/transitions.ts: the one list). */
  statuses: readonly string[];
  /** Statuses nothing moves a job out of except retention. */
  final: readonly string[];
  /** The kind's transition table (domain/…/transitions.ts); the engine's moves are required. */
  moves: Record<EngineMove, Move<string>> & Partial<Record<string, Move<string>>>;
  /** The status a job waits for a worker in (restore: processing without a lease; clip: queued). */
  waiting: string;
  /** The status a job is in while a worker holds its lease. */
  running: string;
  /**
   * The schema of the kind's work-item params: workItem builds them, and the worker loop parses
   * them with it once, so an executor gets them typed.
   */
  params: z.ZodType<P>;
  /** Where the worker reads the input and stores the output, and the engine's parameters. */
  workItem(row: Row, deps: JobEngineDeps): Promise<WorkItemBody<P>>;
  /** Where the kind's files live in storage (storage/keys.ts builds and parses keys from it). */
  fileLayout: JobFileLayout;
  /** Which of the kind's files may be uploaded when (the upload guard asks). */
  uploads: Readonly<Record<string, UploadRule>>;
  /** Returns the charge (and whatever else pays for the job) inside the move's transaction. */
  refund(tx: Db, row: Row, reason: string, events?: RefundEvents): Promise<void>;
  /** How the queue estimate measures the kind's work (its classes, amounts and speeds). */
  estimate: QueueMeasure<Row>;
  /** The label run-time metrics split this job by (restore: quality; clip: size). */
  variant?(row: Row): string;
  /**
   * Acts on what a running attempt noted (restore: its measured length). `row` is the job as its
   * lease holder holds it; the hook's own writes must stay conditional on that lease.
   */
  noted?(row: Row, note: WorkNote, deps: JobEngineDeps): Promise<void>;
  /**
   * Fields written when an attempt succeeds, or a retryable problem with the result — or the
   * job's hand-off to child units (./children.ts): it stays running, its lease held by them.
   */
  finish(
    row: Row,
    result: WorkResult,
    deps: JobEngineDeps,
  ): Promise<{ set: JobFields } | { retry: string } | { handOff: HandOff }>;
  /**
   * A kind whose jobs are another's child units: inserts the units `handOff.units` describes
   * for `parent`, inside the hand-off's transaction (so a parent never waits on units never made).
   */
  spawn?(tx: Db, parent: JobColumns, units: unknown, deps: JobEngineDeps): Promise<void>;
  /** After a job's `complete` move (outside its transaction): a child unit's next step. */
  completed?(row: Row, deps: JobEngineDeps): Promise<void>;
  /** After a job ended failed or refused (outside the move's transaction). */
  ended?(row: Row, deps: JobEngineDeps): Promise<void>;
  /** After a heartbeat that carried progress (a child unit's parent shows the sum). */
  beat?(row: Row, deps: JobEngineDeps): Promise<void>;
  /**
   * A kind whose jobs are another's child units: stops the units of `parentId`, which a caller
   * ended (cancelled), and deletes their files; how many were stopped (./children.ts).
   */
  stopUnits?(deps: ChildStopDeps, parentId: string): Promise<number>;
  /**
   * A kind whose jobs are another's child units: how many of each parent's are done, running
   * and waiting (a parent without units is absent), for its view (./children.ts).
   */
  unitCounts?(db: Db, parentIds: readonly string[]): Promise<Map<string, UnitCounts>>;
  /** How a final failure ends the job: `fail` or `refuse`, with extra fields. */
  end(failure: WorkFailure): { move: "fail" | "refuse"; set?: JobFields };
  /** The error of a job that used its last attempt. */
  exhausted(attempts: number, lastMessage: string): string;
  /** The error of a job whose worker stopped heartbeating on the last attempt. */
  workerLost(attempts: number): string;
  /** Storage keys this job owns (deleted when its retention ends). */
  files(row: Row): string[];
  /** Files no longer needed once the job ended (done: the input; failed: the input too). */
  filesAfterEnd(row: Row, outcome: "done" | "ended"): string[];
  retention(deps: JobEngineDeps): RetentionRule<Row>[];
}

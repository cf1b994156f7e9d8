/**
 * The simulation's model of the whole system: wallets, agent keys and jobs of every kind the
 * test app serves, with what each should be after every operation. Time-driven moves (lease
 * recovery, retention) are predicted here from the rules the SPEC and the README state, not
 * read back from the database, so a disagreement between the model and the system is a failure
 * of one of them. What a kind is — its table, statuses, moves, waiting and running status, read
 * operation — comes from its declaration in the registry (src/job-kinds.ts), never a list here.
 */
import { JOB_KINDS } from "../../src/job-kinds.js";
import type { JobKind } from "../../src/kinds/kind.js";
import type { TestApp } from "../app.js";

/** A kind's name, as the registry has it. */
export type Kind = string;

/** The registry's kind of this name (the simulation drives only kinds the server has). */
export function kindNamed(name: Kind): JobKind {
  const kind = JOB_KINDS.find((k) => k.name === name);
  if (!kind) throw new Error(`the simulation has a job of "${name}", which no registry kind is`);
  return kind;
}

/** The registry's kinds whose queues the test app serves, in registry order. */
export function servedKinds(t: TestApp): JobKind[] {
  const served = new Set(t.features.flatMap((f) => f.queues ?? []).map((q) => q.kind));
  return JOB_KINDS.filter((k) => served.has(k.name));
}

/** The status a kind's job waits for a worker in (its definition's). */
export const waitingOf = (kind: Kind): string => kindNamed(kind).definition.waiting;
/** The status a kind's job is in while a worker holds its lease (its definition's). */
export const runningOf = (kind: Kind): string => kindNamed(kind).definition.running;

export interface SimKey {
  id: string;
  secret: string;
  limit: number;
  spent: number;
  revoked: boolean;
}

export interface SimWallet {
  id: string;
  secret: string;
  balance: number;
  paused: boolean;
  keys: SimKey[];
}

export interface SimJob {
  kind: Kind;
  id: string;
  /** Null for a restore paid by checkout (no key, e-mail only). */
  wallet: SimWallet | null;
  key: SimKey | null;
  price: number;
  /** Restores paid by card: refunds go to the card-refund outbox, not the balance. */
  byCard: boolean;
  /** A card payment arrived (pending_payment jobs only). */
  cardPaid: boolean;
  /** Current status; change it only with setStatus so the path is recorded. */
  status: string;
  /** Every status the model moved the job through, to check each move is in the table. */
  path: string[];
  upload: { url: string; headers: Record<string, string>; bytes: Uint8Array };
  uploaded: boolean;
  createdAt: number;
  /** The upload link and the wait for the file end here (restore 24 h, clip 1 h). */
  uploadDeadline: number;
  attempts: number;
  lease: { owner: string; until: number } | null;
  /** A result of some attempt is in storage (a later report of success may rely on it). */
  outputStored: boolean;
  /** When a done job's files expire (finish + retention). */
  expiresAt: number | null;
  /** Balance refunds made (0 or 1) and card refunds queued (0 or 1). */
  refunds: number;
  cardRefunds: number;
}

export interface SimConfig {
  leaseMs: number;
  maxAttempts: number;
  retentionMs: number;
  /** Every wallet registers a webhook endpoint here for its jobs' completions. */
  webhookUrl?: string;
}

/** Moves the model's job (a repeated status is not a move). */
export function setStatus(job: SimJob, status: string): void {
  if (job.status === status) return;
  job.status = status;
  job.path.push(status);
}

export class Model {
  readonly wallets: SimWallet[] = [];
  readonly jobs: SimJob[] = [];
  /** Crashed attempts whose worker may still report late. */
  readonly zombies: { job: SimJob; worker: string }[] = [];

  constructor(readonly cfg: SimConfig) {}

  /** A balance-paid job's charge, as the ledger takes it. */
  charge(job: SimJob): void {
    if (!job.wallet) return;
    job.wallet.balance -= job.price;
    if (job.key) job.key.spent += job.price;
  }

  /** Ends a job; a refunding end returns the price to where it came from, once. */
  end(job: SimJob, status: string, refunds: boolean, now: number): void {
    setStatus(job, status);
    job.lease = null;
    if (status === "done") job.expiresAt = now + this.cfg.retentionMs;
    if (!refunds) return;
    if (job.byCard) {
      if (job.cardPaid) job.cardRefunds = 1;
      return;
    }
    if (job.refunds > 0 || !job.wallet) return;
    job.refunds = 1;
    job.wallet.balance += job.price;
    if (job.key) job.key.spent -= job.price;
  }

  /** A retryable failure: back to waiting while attempts remain, else failed and refunded. */
  retryOrFail(job: SimJob, now: number): void {
    if (job.attempts < this.cfg.maxAttempts) {
      setStatus(job, waitingOf(job.kind));
      job.lease = null;
    } else {
      this.end(job, "failed", true, now);
    }
  }

  /** Jobs a claim of `kind` may hand out. */
  claimable(kind: Kind): SimJob[] {
    const waiting = waitingOf(kind);
    return this.jobs.filter((j) => j.kind === kind && j.status === waiting && !j.lease);
  }

  /** What recoverLapsedLeases must do at `now`. */
  recoverLeases(kind: Kind, now: number): number {
    let n = 0;
    for (const job of this.jobs) {
      if (job.kind !== kind || job.status !== runningOf(kind) || !job.lease) continue;
      if (job.lease.until >= now) continue;
      this.retryOrFail(job, now);
      n++;
    }
    return n;
  }

  /** What one retention sweep must do at `now` (the moves; file deletion is checked apart). */
  sweep(kind: Kind, now: number): void {
    for (const job of this.jobs) {
      if (job.kind !== kind) continue;
      if (job.status === "awaiting_upload" && job.uploadDeadline < now) {
        this.end(job, "expired", true, now);
      } else if (job.status === "pending_payment" && job.uploadDeadline < now) {
        this.end(job, "expired", false, now);
      } else if (job.status === "done" && (job.expiresAt ?? Infinity) < now) {
        this.end(job, "expired", false, now);
      }
    }
  }
}

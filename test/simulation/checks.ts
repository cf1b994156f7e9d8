/**
 * The invariants the simulation checks after every step, against the database and storage:
 * reconcile finds no drift; every job is in the status the model says, reached by a move its
 * kind's transition table allows; each job has one charge (balance-paid) and at most one
 * refund, exactly when its end refunds; card-paid failures queue one card refund; balances
 * and allowances match the model; a done job's result is stored; no file outlives its
 * retention (beyond the last sweep) and no clip image outlives its clip.
 */
import { sql } from "kysely";
import { expect } from "vitest";
import { JOB_KINDS } from "../../src/job-kinds.js";
import { clipOutputKey } from "../../src/kinds/clips/services/definition.js";
import { restoreOutputKey } from "../../src/kinds/restore/services/definition.js";
import { reconcile } from "../../src/services/reconcile.js";
import type { BlobStore } from "../../src/storage/blob-store.js";
import type { TestApp } from "../app.js";
import { type Kind, kindNamed, type Model, type SimJob, servedKinds } from "./model.js";

/** A job's row, of any kind's table: the engine's columns and the kind's own (file keys). */
interface JobRow {
  id: string;
  status: string;
  finished_at: Date | string | null;
  input_key?: string;
  image_key?: string;
}

/** What earlier checks established: how much of each job's path was checked, and which ended
 * jobs were seen with no files left (rechecked only on full checks, to keep steps cheap). */
export interface Seen {
  path: Map<string, number>;
  settled: Set<string>;
}

export const newSeen = (): Seen => ({ path: new Map(), settled: new Set() });

const SETTLED = ["cancelled", "expired"];

/** Whether the kind's transition table (its definition's, standard moves included) has the move. */
export function isLegalMove(kind: Kind, from: string, to: string): boolean {
  const moves = Object.values(kindNamed(kind).definition.moves);
  return moves.some((m) => m?.to === to && m.from.includes(from));
}

const ms = (d: Date | string | null | undefined) => (d ? new Date(d).getTime() : null);

/** The outboxes card refunds are queued in: each pay-per-job checkout's, from the registry. */
const CARD_REFUND_TABLES = JOB_KINDS.flatMap((k) =>
  k.checkout ? [k.checkout.hooks.cardRefundTables.outbox] : [],
);

async function rows(t: TestApp) {
  const db = t.deps.db;
  const [jobs, ledger, cardRefunds] = await Promise.all([
    // Every served kind's job table, whole: the engine's columns and the kind's file keys.
    Promise.all(
      servedKinds(t).map(
        async (k) => (await sql<JobRow>`SELECT * FROM ${sql.table(k.table)}`.execute(db)).rows,
      ),
    ),
    db
      .selectFrom("ledger_entries")
      .select(["job_id", "kind"])
      .where("job_id", "is not", null)
      .execute(),
    Promise.all(
      CARD_REFUND_TABLES.map(
        async (table) =>
          (await sql<{ job_id: string }>`SELECT job_id FROM ${sql.table(table)}`.execute(db)).rows,
      ),
    ),
  ]);
  const count = (list: { job_id: string | null }[], id: string) =>
    list.filter((e) => e.job_id === id).length;
  return { jobs: jobs.flat(), ledger, cardRefunds: cardRefunds.flat(), count };
}

export async function checkInvariants(
  t: TestApp,
  model: Model,
  seen: Seen,
  lastSweep: number,
  full: boolean,
): Promise<void> {
  const report = await reconcile(t.deps.db);
  expect(report.drift, "reconcile drift").toEqual([]);
  await checkMoney(t, model);
  const r = await rows(t);
  const byId = new Map(r.jobs.map((row) => [row.id, row]));
  expect(byId.size, "a job id in two rows").toBe(r.jobs.length);
  expect(byId.size, "jobs the model does not know").toBe(model.jobs.length);
  for (const job of model.jobs) {
    const row = byId.get(job.id);
    expect(row, `${job.id} missing`).toBeDefined();
    if (!row) continue;
    // Every move the model made since the last check must be one the kind's table allows.
    for (let i = seen.path.get(job.id) ?? 1; i < job.path.length; i++) {
      const [from, to] = [job.path[i - 1] as string, job.path[i] as string];
      expect(isLegalMove(job.kind, from, to), `${job.id}: ${from} → ${to}`).toBe(true);
    }
    seen.path.set(job.id, job.path.length);
    expect(row.status, `${job.id} status`).toBe(job.status);
    const charges = r.ledger.filter((e) => e.job_id === job.id && e.kind === "charge").length;
    const refunds = r.ledger.filter((e) => e.job_id === job.id && e.kind === "refund").length;
    expect(charges, `${job.id} charges`).toBe(job.byCard ? 0 : 1);
    expect(refunds, `${job.id} refunds`).toBe(job.refunds);
    expect(r.count(r.cardRefunds, job.id), `${job.id} card refunds`).toBe(job.cardRefunds);
    if (!full && seen.settled.has(job.id)) continue;
    const left = await checkFiles(t.deps.storage, job, row, lastSweep, model.cfg.retentionMs);
    if (left === 0 && SETTLED.includes(job.status)) seen.settled.add(job.id);
  }
}

async function checkMoney(t: TestApp, model: Model) {
  const wallets = await t.deps.db.selectFrom("wallets").select(["id", "balance_cents"]).execute();
  const keys = await t.deps.db.selectFrom("agent_keys").select(["id", "spent_cents"]).execute();
  const balance = new Map(wallets.map((w) => [w.id, Number(w.balance_cents)]));
  const spent = new Map(keys.map((k) => [k.id, Number(k.spent_cents)]));
  for (const w of model.wallets) {
    expect(balance.get(w.id), `${w.id} balance`).toBe(w.balance);
    for (const k of w.keys) expect(spent.get(k.id), `${k.id} spent`).toBe(k.spent);
  }
}

/** A kind's file rules: its input and result keys, and in which statuses each may remain. */
interface FileRules {
  keys(job: SimJob, row: JobRow): { input: string; output: string };
  /** `endedKept`: the job ended and its retention has not passed by the last sweep. */
  may(status: string, endedKept: boolean): { input: boolean; output: boolean };
}

/** The SPEC's file rules of each kind the simulation makes jobs of, by the kind's name. */
const FILE_RULES: Record<Kind, FileRules> = {
  restore: {
    keys: (job, row) => ({ input: String(row.input_key), output: restoreOutputKey(job.id) }),
    may(s, endedKept) {
      const ended = ["failed", "refunded", "cancelled"].includes(s);
      return {
        // A cancel deletes the file, and an upload that ends after it is refused and deleted,
        // so no cancelled restore keeps an input (its price was refunded).
        input:
          ["pending_payment", "awaiting_upload", "processing"].includes(s) ||
          (ended && endedKept && s !== "cancelled"),
        output: s === "done" || s === "processing" || (ended && endedKept),
      };
    },
  },
  clip: {
    keys: (job, row) => ({ input: String(row.image_key), output: clipOutputKey(job.id) }),
    may: (s) => ({
      // SPEC: clip images are deleted as soon as the clip is made (or has ended).
      input: ["awaiting_upload", "queued", "processing"].includes(s),
      // A clip that ended without being made loses any earlier attempt's result at once.
      output: ["done", "queued", "processing"].includes(s),
    }),
  },
};

/**
 * Which files a job may (or must) have. "Until the sweep" means: allowed only while the
 * deadline is not before the last sweep (the sweeper deletes what is due when it runs).
 */
async function checkFiles(
  storage: BlobStore,
  job: SimJob,
  row: JobRow,
  lastSweep: number,
  retentionMs: number,
): Promise<number> {
  const rules = FILE_RULES[job.kind];
  if (!rules) throw new Error(`the simulation has no file rules for the kind "${job.kind}"`);
  const s = row.status;
  const finished = ms(row.finished_at);
  const endedKept = finished !== null && finished + retentionMs >= lastSweep;
  const keys = rules.keys(job, row);
  const may = rules.may(s, endedKept);
  const [input, output] = await Promise.all([storage.head(keys.input), storage.head(keys.output)]);
  if (!may.input) expect(input, `${job.id} (${s}) still has its input`).toBeNull();
  if (!may.output) expect(output, `${job.id} (${s}) still has its result`).toBeNull();
  if (s === "done") expect(output, `${job.id} is done without a stored result`).not.toBeNull();
  return (input ? 1 : 0) + (output ? 1 : 0);
}

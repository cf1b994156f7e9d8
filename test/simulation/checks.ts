/**
 * The invariants the simulation checks after every step, against the database and storage:
 * reconcile finds no drift; every job is in the status the model says, reached by a move its
 * kind's transition table allows; each job has one charge (balance-paid) and at most one
 * refund, exactly when its end refunds; card-paid failures queue one card refund; balances
 * and allowances match the model; a done job's result is stored; no file outlives its
 * retention (beyond the last sweep) and no clip image outlives its clip.
 */
import { expect } from "vitest";
import type { Move } from "../../src/domain/job-lifecycle/moves.js";
import { CLIP_MOVES } from "../../src/kinds/clips/rules/transitions.js";
import { clipOutputKey } from "../../src/kinds/clips/services/definition.js";
import { RESTORE_MOVES } from "../../src/kinds/restore/rules/transitions.js";
import { restoreOutputKey } from "../../src/kinds/restore/services/definition.js";
import { reconcile } from "../../src/services/reconcile.js";
import type { BlobStore } from "../../src/storage/blob-store.js";
import type { TestApp } from "../app.js";
import type { Kind, Model, SimJob } from "./model.js";

const MOVES: Record<Kind, Record<string, Move>> = { restore: RESTORE_MOVES, clip: CLIP_MOVES };

interface JobRow {
  id: string;
  status: string;
  finished_at: Date | string | null;
  upload_expires_at?: Date | string | null;
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

export function isLegalMove(kind: Kind, from: string, to: string): boolean {
  return Object.values(MOVES[kind]).some((m) => m.to === to && m.from.includes(from));
}

const ms = (d: Date | string | null | undefined) => (d ? new Date(d).getTime() : null);

async function rows(t: TestApp) {
  const db = t.deps.db;
  const [restores, clips, ledger, cardRefunds] = await Promise.all([
    db
      .selectFrom("restore_jobs")
      .select(["id", "status", "finished_at", "input_key"])
      .execute() as Promise<JobRow[]>,
    db
      .selectFrom("clips")
      .select(["id", "status", "finished_at", "upload_expires_at", "image_key"])
      .execute() as Promise<JobRow[]>,
    db
      .selectFrom("ledger_entries")
      .select(["job_id", "kind"])
      .where("job_id", "is not", null)
      .execute(),
    db.selectFrom("restore_card_refunds").select("job_id").execute(),
  ]);
  const count = (list: { job_id: string | null }[], id: string) =>
    list.filter((e) => e.job_id === id).length;
  return { restores, clips, ledger, cardRefunds, count };
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
  const byId = new Map([...r.restores, ...r.clips].map((row) => [row.id, row]));
  expect(byId.size, "a job id in two rows").toBe(r.restores.length + r.clips.length);
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
  const s = row.status;
  const finished = ms(row.finished_at);
  const endedKept = finished !== null && finished + retentionMs >= lastSweep;
  let inputKey: string;
  let outputKey: string;
  let inputMay: boolean;
  let outputMay: boolean;
  if (job.kind === "restore") {
    inputKey = row.input_key as string;
    outputKey = restoreOutputKey(job.id);
    const ended = ["failed", "refunded", "cancelled"].includes(s);
    // A cancel deletes the file, and an upload that ends after it is refused and deleted, so
    // no cancelled restore keeps an input (its price was refunded).
    inputMay =
      ["pending_payment", "awaiting_upload", "processing"].includes(s) ||
      (ended && endedKept && s !== "cancelled");
    outputMay = s === "done" || s === "processing" || (ended && endedKept);
  } else {
    inputKey = row.image_key as string;
    outputKey = clipOutputKey(job.id);
    // SPEC: clip images are deleted as soon as the clip is made (or has ended).
    inputMay = ["awaiting_upload", "queued", "processing"].includes(s);
    // A clip that ended without being made loses any earlier attempt's result at once.
    outputMay = ["done", "queued", "processing"].includes(s);
  }
  const [input, output] = await Promise.all([storage.head(inputKey), storage.head(outputKey)]);
  if (!inputMay) expect(input, `${job.id} (${s}) still has its input`).toBeNull();
  if (!outputMay) expect(output, `${job.id} (${s}) still has its result`).toBeNull();
  if (s === "done") expect(output, `${job.id} is done without a stored result`).not.toBeNull();
  return (input ? 1 : 0) + (output ? 1 : 0);
}

/**
 * A third job kind that exists only in the tests, to prove a kind is one unit: "echo" jobs
 * upload a small text file, a worker reads it through the work item's input URL and reports it
 * upper-cased, and the result lands in a column. This file is the whole kind — definition
 * (statuses, moves, typed params, file layout and upload rules, retention), executor, feature
 * and registry entry; nothing in the engine, the worker API, storage, the upload guard,
 * metrics or the worker process names it. Its table is created by the test itself (a real kind
 * adds a migration), its moves mirror the clip lifecycle.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { z } from "zod";
import type { MoveTable } from "../../src/domain/job-lifecycle/moves.js";
import type { FeatureFactory } from "../../src/feature.js";
import { type JobKindEntry, kindQueue, startSweeper } from "../../src/features/job-kind.js";
import type { Db, JobColumns, JobDefinition, JobEngineDeps } from "../../src/jobs/definition.js";
import type { Executor } from "../../src/jobs/work.js";
import { charge, refundJob } from "../../src/services/ledger.js";
import { type JobFileLayout, jobFileKey } from "../../src/storage/keys.js";

const STATUSES = [
  "awaiting_upload",
  "queued",
  "running",
  "done",
  "failed",
  "refused",
  "cancelled",
  "expired",
] as const;
export type EchoStatus = (typeof STATUSES)[number];
const FINAL: readonly EchoStatus[] = ["done", "failed", "refused", "cancelled", "expired"];

export const ECHO_MOVES = {
  start: { from: ["awaiting_upload"], to: "queued", refunds: false, why: "text uploaded" },
  cancel: { from: ["awaiting_upload"], to: "cancelled", refunds: true, why: "cancelled" },
  claim: { from: ["queued"], to: "running", refunds: false, why: "claimed by a worker" },
  requeue: { from: ["running"], to: "queued", refunds: false, why: "retrying" },
  release: { from: ["running"], to: "queued", refunds: false, why: "worker shut down" },
  complete: { from: ["running"], to: "done", refunds: false, why: "echoed" },
  fail: { from: ["running"], to: "failed", refunds: true, why: "echo failed" },
  refuse: { from: ["running"], to: "refused", refunds: true, why: "text refused" },
  uploadExpired: {
    from: ["awaiting_upload"],
    to: "expired",
    refunds: true,
    why: "text never uploaded",
  },
  retentionExpired: { from: ["done"], to: "expired", refunds: false, why: "retention" },
} as const satisfies MoveTable<EchoStatus>;

export interface EchoRow extends JobColumns {
  status: EchoStatus;
  input_key: string;
  upload_expires_at: Date;
  result: string | null;
}

/** The table the test creates: the engine's columns plus the kind's own. */
export async function createEchoTable(db: Db): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS echo_jobs (
      id text PRIMARY KEY,
      status text NOT NULL,
      wallet_id text REFERENCES wallets(id),
      agent_key_id text,
      amount_cents integer NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NOT NULL,
      lease_owner text,
      lease_expires_at timestamptz,
      claimed_at timestamptz,
      claimed_by text,
      progress double precision,
      error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      queued_at timestamptz,
      started_at timestamptz,
      finished_at timestamptz,
      expires_at timestamptz,
      files_deleted_at timestamptz,
      input_key text NOT NULL,
      upload_expires_at timestamptz NOT NULL,
      result text
    )`.execute(db);
}

export const ECHO_PRICE_CENTS = 7;
const UPLOAD_WINDOW_MS = 3600_000;

/** What an echo worker gets: whether to shout (the executor receives it parsed). */
export const EchoParams = z.object({ shout: z.boolean() });
export type EchoParams = z.infer<typeof EchoParams>;

/** Echo's one file: `echo/echo_…/input`, the text to echo. */
export const ECHO_FILES: JobFileLayout = {
  area: "echo",
  idPattern: /^echo_[A-Za-z0-9_-]{1,100}$/,
  files: ["input"],
};
export const echoInputKey = (id: string) => jobFileKey(ECHO_FILES, id, "input");

/** What a create route would do: charge and insert in one transaction (status awaiting_upload). */
export async function createEchoJob(
  deps: Pick<JobEngineDeps, "db" | "clock">,
  walletId: string,
  maxAttempts: number,
): Promise<string> {
  const id = `echo_${randomUUID()}`;
  const now = deps.clock();
  await deps.db.transaction().execute(async (tx) => {
    await charge(tx, {
      walletId,
      agentKeyId: null,
      amountCents: ECHO_PRICE_CENTS,
      jobId: id,
      reason: `echo ${id}`,
    });
    await sql`INSERT INTO echo_jobs (id, status, wallet_id, amount_cents, max_attempts,
        created_at, updated_at, input_key, upload_expires_at)
      VALUES (${id}, 'awaiting_upload', ${walletId}, ${ECHO_PRICE_CENTS}, ${maxAttempts},
        ${now}, ${now}, ${echoInputKey(id)}, ${new Date(now.getTime() + UPLOAD_WINDOW_MS)})`.execute(
      tx,
    );
  });
  return id;
}

/**
 * The echo job once it is done, or as it stands when `ms` of real time have passed (a worker
 * runs on its own clock; the deadline only stops a broken run).
 */
export async function waitForEchoDone(
  db: Db,
  id: string,
  ms = 20_000,
): Promise<EchoRow | undefined> {
  const read = async () =>
    (await sql<EchoRow>`SELECT * FROM echo_jobs WHERE id = ${id}`.execute(db)).rows[0];
  const deadline = Date.now() + ms;
  let row = await read();
  while (row?.status !== "done" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    row = await read();
  }
  return row;
}

/** The whole kind, as the engine sees it. */
export const echoJobs: JobDefinition<EchoRow, EchoParams> = {
  kind: "echo",
  table: "echo_jobs",
  noun: "echo job",
  statuses: STATUSES,
  final: FINAL,
  moves: ECHO_MOVES,
  waiting: "queued",
  running: "running",
  params: EchoParams,
  async workItem(row, deps) {
    return {
      inputUrl: await deps.storage.presignDownload(row.input_key, { expiresInSec: 3600 }),
      // Echo stores no output file: the result travels in the report.
      outputUrl: "",
      outputHeaders: {},
      params: { shout: true },
    };
  },
  fileLayout: ECHO_FILES,
  // The caller's link takes one upload, while the job waits for its text.
  uploads: { input: { statuses: ["awaiting_upload"], once: true } },
  // Runs inside the refunding move's transaction; at most once per job (ledger unique index).
  refund: async (tx, row, reason) => {
    await refundJob(tx, row.id, reason);
  },
  // Every echo is one unit of work of one class, a tenth of a second until measured.
  estimate: {
    classSql: () => sql`'echo'`,
    amountSql: () => sql`1`,
    doneAmountSql: () => sql`1`,
    succeededSql: (t) => sql`${sql.ref(`${t}.result`)} IS NOT NULL`,
    work: () => ({ workClass: "echo", amount: 1 }),
    defaults: { echo: 0.1 },
  },
  async finish(_row, result) {
    const echoed = result.meta.echo;
    if (typeof echoed !== "string") return { retry: "The worker sent no echo." };
    return { set: { result: echoed } };
  },
  end: (failure) => ({ move: failure.kind === "refused" ? "refuse" : "fail" }),
  exhausted: (attempts, last) => `${last} (after ${attempts} attempts)`,
  workerLost: (attempts) => `The echo worker stopped responding on all ${attempts} attempts.`,
  files: (row) => [row.input_key],
  // The input stays until retention, so the sweeper has a file to delete for every end.
  filesAfterEnd: () => [],
  retention(deps) {
    const retentionMs = deps.retentionHours * 3600_000;
    return [
      {
        statuses: ["awaiting_upload"],
        due: { column: "upload_expires_at", before: (now) => now },
        move: "uploadExpired",
        set: (_row, now) => ({ error: "The text never arrived.", finished_at: now }),
      },
      {
        statuses: ["done"],
        due: { column: "expires_at", before: (now) => now },
        move: "retentionExpired",
        set: () => ({ error: "Deleted after retention." }),
      },
      {
        statuses: ["failed", "refused", "cancelled", "expired"],
        due: { column: "finished_at", before: (now) => new Date(now.getTime() - retentionMs) },
      },
    ];
  },
};

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/** The worker side: reads the input through the work item's URL and shouts it back. */
export function createEchoExecutor(fetchImpl: Fetch = fetch): Executor<EchoParams> {
  return {
    kind: echoJobs.kind,
    params: EchoParams,
    async execute(item, ctx) {
      const res = await fetchImpl(item.inputUrl, { signal: ctx.signal });
      if (!res.ok) throw new Error(`input download: ${res.status}`);
      const text = await res.text();
      ctx.progress(1);
      // Typed params: `shout` is a boolean here, parsed once by the worker loop.
      return { outputBytes: 0, meta: { echo: item.params.shout ? text.toUpperCase() : text } };
    },
  };
}

/** Echo's feature: its queue, an in-process executor and its retention sweeper (no routes). */
export function echoFeature(opts: { fetch?: Fetch; noExecutor?: boolean } = {}): FeatureFactory {
  return (p) => ({
    name: "echo",
    queues: [kindQueue(echoJobs, p)],
    executors: opts.noExecutor ? [] : [createEchoExecutor(opts.fetch)],
    start: async () => startSweeper(echoJobs, p),
  });
}

/** The registry entry: what a real kind adds as one line to src/job-kinds.ts. */
export const echoKind: JobKindEntry = {
  definition: echoJobs,
  executor: (_config, seams) => createEchoExecutor(seams?.fetch),
  feature: () => echoFeature(),
};

/**
 * The job engine's shared test suite: the same cases run once per kind (engine.test.ts runs it
 * for restores, clips and a test-only kind), so a kind is proven by its definition alone —
 * claim races, lease lapse and retry, the last attempt's refund, start vs cancel, retention.
 * Everything goes through the engine's seams (createJobQueue, moveJob, sweepJobs), each kind on
 * its own table of one fresh database; statuses come from the definition, never per kind.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jobEngineDeps } from "../../src/feature.js";
import type { JobColumns, JobDefinition, JobEngineDeps } from "../../src/jobs/definition.js";
import { findJobRow, moveJob } from "../../src/jobs/move.js";
import { createJobQueue } from "../../src/jobs/queue.js";
import { sweepJobs } from "../../src/jobs/retention.js";
import type { JobQueue, WorkResult } from "../../src/jobs/work.js";
import { createTestApp, type TestApp } from "../app.js";
import { onPostgres } from "../db.js";

/** What the suite needs to know about a kind beyond its definition. */
export interface KindFixture<Row extends JobColumns = JobColumns> {
  def: JobDefinition<Row>;
  /** Prepares the database before the kind's cases (a test-only kind creates its table). */
  setup?(t: TestApp): Promise<void>;
  /**
   * Creates a job charged to the wallet (ledger entry included), in the status its start and
   * cancel moves leave from, with max_attempts from the config (JOB_MAX_ATTEMPTS).
   */
  create(t: TestApp, walletId: string): Promise<string>;
  /** The kind's move that makes a created job claimable, and the one that cancels it. */
  startMove: string;
  cancelMove: string;
  /** A worker's successful report for this kind. */
  result: WorkResult;
}

const LEASE = 60_000;
const MAX_ATTEMPTS = 2;
const FUNDS = 100_000;

/** The app (and database) the kinds' cases run on; each kind has its own table in it. */
export interface EngineApp {
  readonly t: TestApp;
}

/**
 * One app for every kind of a test file (a database per kind would cost a migration each),
 * with JOB_MAX_ATTEMPTS as the cases expect; call at the top level of the file.
 */
export function useEngineApp(): EngineApp {
  const holder = {} as { t: TestApp };
  beforeAll(async () => {
    holder.t = await createTestApp({ env: { JOB_MAX_ATTEMPTS: String(MAX_ATTEMPTS) } });
  });
  afterAll(async () => {
    await holder.t?.close();
  });
  return holder;
}

/** The kind's queue on the shared app, and readers of its rows and money. */
function harness<Row extends JobColumns>(fx: KindFixture<Row>, app: EngineApp) {
  const { def } = fx;
  const h = {} as { t: TestApp; deps: JobEngineDeps; queue: JobQueue; blob: string };
  beforeAll(async () => {
    h.t = app.t;
    await fx.setup?.(h.t);
    h.deps = jobEngineDeps(h.t.platform);
    h.queue = createJobQueue(def, h.deps);
    h.blob = path.join(h.t.dataDir, "blob.bin");
    await writeFile(h.blob, "a file the job owns");
  });
  // Every case starts with nothing running or claimable: lapse leases, then end what waits.
  beforeEach(async () => {
    h.t.clock.advance(LEASE + 1);
    await h.queue.recoverLapsedLeases();
    for (let item = await h.queue.claim("settle", LEASE); item; ) {
      await h.queue.fail(item.jobId, "settle", { kind: "final", message: "settled" });
      item = await h.queue.claim("settle", LEASE);
    }
  });

  const row = async (id: string) => {
    const found = await findJobRow(h.t.deps.db, def, id);
    if (!found) throw new Error(`${def.kind} ${id} not found`);
    return found;
  };
  const entries = (id: string, kind: "charge" | "refund") =>
    h.t.deps.db
      .selectFrom("ledger_entries")
      .select("amount_cents")
      .where("job_id", "=", id)
      .where("kind", "=", kind)
      .execute()
      .then((rows) => rows.map((r) => Number(r.amount_cents)));

  return {
    h,
    row,
    /** Amounts of the job's refund entries (positive cents). */
    refunds: (id: string) => entries(id, "refund"),
    /** The job's price, from its charge entry. */
    price: async (id: string) => -((await entries(id, "charge"))[0] ?? 0),
    async wallet() {
      return (await h.t.newWallet(FUNDS)).walletId;
    },
    async balance(walletId: string) {
      const w = await h.t.deps.db
        .selectFrom("wallets")
        .select("balance_cents")
        .where("id", "=", walletId)
        .executeTakeFirstOrThrow();
      return Number(w.balance_cents);
    },
    /** A created job with every file it owns in storage. */
    async created(walletId: string) {
      const id = await fx.create(h.t, walletId);
      for (const key of def.files(await row(id))) {
        await h.t.deps.storage.uploadFromFile(key, h.blob, "application/octet-stream");
      }
      return id;
    },
    start: (id: string) => {
      const now = h.t.clock.now();
      return moveJob(h.t.deps.db, def, id, fx.startMove, now, { queued_at: now });
    },
    cancel: (id: string) => {
      const now = h.t.clock.now();
      return moveJob(h.t.deps.db, def, id, fx.cancelMove, now, { finished_at: now });
    },
    /** Whether every file the job owns is gone from storage. */
    async filesGone(id: string) {
      const heads = await Promise.all(
        def.files(await row(id)).map((k) => h.t.deps.storage.head(k)),
      );
      return heads.every((head) => head === null);
    },
  };
}

type Harness<Row extends JobColumns> = ReturnType<typeof harness<Row>>;

/** A started (claimable) job; the clock ticks so jobs are claimed in the order they were made. */
async function ready<Row extends JobColumns>(k: Harness<Row>, walletId: string) {
  const id = await k.created(walletId);
  if (!(await k.start(id))) throw new Error(`could not start ${id}`);
  k.h.t.clock.advance(1);
  return id;
}

/** Registers the engine's cases for one kind. */
export function describeJobEngine<Row extends JobColumns>(
  fx: KindFixture<Row>,
  app: EngineApp,
): void {
  describe(`job engine: ${fx.def.kind}`, () => {
    const k = harness(fx, app);
    claimCases(fx.def, k);
    lapseCases(fx.def, k);
    lastAttemptCases(fx.def, k);
    startCancelCases(fx, k);
    retentionCases(fx, k);
  });
}

function claimCases<Row extends JobColumns>(def: JobDefinition<Row>, k: Harness<Row>) {
  it("two workers racing for one job: exactly one claims it, under its lease", async () => {
    const id = await ready(k, await k.wallet());
    const [a, b] = await Promise.all([
      k.h.queue.claim("w-a", LEASE),
      k.h.queue.claim("w-b", LEASE),
    ]);
    const winners = [a, b].filter((item) => item !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ kind: def.kind, jobId: id, attempt: 1, leaseMs: LEASE });
    expect(await k.row(id)).toMatchObject({
      status: def.running,
      lease_owner: a ? "w-a" : "w-b",
      attempts: 1,
    });
    expect(await k.h.queue.claim("w-c", LEASE)).toBeNull();
  });

  it("ten workers racing for four jobs: each job is claimed exactly once", async () => {
    const walletId = await k.wallet();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await ready(k, walletId));
    const items = await Promise.all(
      Array.from({ length: 10 }, (_, i) => k.h.queue.claim(`w${i}`, LEASE)),
    );
    const claimed = items.flatMap((item) => (item ? [item.jobId] : []));
    expect(claimed.sort()).toEqual([...ids].sort());
  });

  // PGlite has one connection, so no other transaction can hold a row lock there.
  it.skipIf(!onPostgres)("skips a job another transaction has locked (SKIP LOCKED)", async () => {
    const walletId = await k.wallet();
    const first = await ready(k, walletId);
    const second = await ready(k, walletId);
    const claimed = await k.h.t.deps.db.transaction().execute(async (tx) => {
      await sql`SELECT id FROM ${sql.table(def.table)} WHERE id = ${first} FOR UPDATE`.execute(tx);
      // Without SKIP LOCKED this claim would wait for the lock this transaction holds, forever:
      // the guard rolls the transaction back instead, so the failure is a message, not a hang.
      let guard: NodeJS.Timeout | undefined;
      const waited = new Promise<never>((_, reject) => {
        guard = setTimeout(() => reject(new Error("the claim waited for a locked row")), 10_000);
      });
      const item = await Promise.race([k.h.queue.claim("w-skip", LEASE), waited]);
      clearTimeout(guard);
      return item;
    });
    expect(claimed?.jobId).toBe(second);
    expect((await k.h.queue.claim("w-next", LEASE))?.jobId).toBe(first);
  });
}

function lapseCases<Row extends JobColumns>(def: JobDefinition<Row>, k: Harness<Row>) {
  it("a lapsed lease requeues the job with the attempt counted; the late worker is ignored", async () => {
    const id = await ready(k, await k.wallet());
    expect((await k.h.queue.claim("dies", LEASE))?.attempt).toBe(1);
    expect(await k.h.queue.recoverLapsedLeases()).toBe(0);
    k.h.t.clock.advance(LEASE + 1);
    expect(await k.h.queue.recoverLapsedLeases()).toBe(1);
    expect(await k.row(id)).toMatchObject({
      status: def.waiting,
      lease_owner: null,
      lease_expires_at: null,
      attempts: 1,
    });
    expect(await k.h.queue.claim("takes-over", LEASE)).toMatchObject({ jobId: id, attempt: 2 });
    expect(await k.h.queue.heartbeat(id, "dies", LEASE, 0.5)).toBe("lease_lost");
    expect(await k.h.queue.complete(id, "dies", { outputBytes: 1, meta: {} })).toBe("lease_lost");
    expect(await k.h.queue.fail(id, "dies", { kind: "final", message: "late" })).toBe("lease_lost");
    expect(await k.row(id)).toMatchObject({
      status: def.running,
      lease_owner: "takes-over",
      attempts: 2,
    });
    expect(await k.refunds(id)).toEqual([]);
  });
}

function lastAttemptCases<Row extends JobColumns>(def: JobDefinition<Row>, k: Harness<Row>) {
  const crash = { kind: "retry", message: "The engine crashed." } as const;

  it("retries a retryable failure, and the last attempt's failure refunds exactly once", async () => {
    const walletId = await k.wallet();
    const id = await ready(k, walletId);
    const price = await k.price(id);
    expect(await k.balance(walletId)).toBe(FUNDS - price);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const worker = `w${attempt}`;
      expect(await k.h.queue.claim(worker, LEASE)).toMatchObject({ jobId: id, attempt });
      expect(await k.h.queue.fail(id, worker, crash)).toBe("ok");
      // A duplicated report changes nothing.
      expect(await k.h.queue.fail(id, worker, crash)).toBe("lease_lost");
      if (attempt < MAX_ATTEMPTS) {
        expect((await k.row(id)).status).toBe(def.waiting);
        expect(await k.refunds(id)).toEqual([]);
      }
    }
    expect(await k.row(id)).toMatchObject({
      status: def.moves.fail.to,
      attempts: MAX_ATTEMPTS,
      lease_owner: null,
      error: def.exhausted(MAX_ATTEMPTS, crash.message),
    });
    expect(await k.refunds(id)).toEqual([price]);
    expect(await k.balance(walletId)).toBe(FUNDS);
    expect(await k.h.queue.claim("after", LEASE)).toBeNull();
  });

  it("a lease lapsing on the last attempt ends the job and refunds once, however many recoveries race", async () => {
    const walletId = await k.wallet();
    const id = await ready(k, walletId);
    const price = await k.price(id);
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      await k.h.queue.claim(`dies-${attempt}`, LEASE);
      k.h.t.clock.advance(LEASE + 1);
      expect(await k.h.queue.recoverLapsedLeases()).toBe(1);
    }
    expect((await k.h.queue.claim("dies-last", LEASE))?.attempt).toBe(MAX_ATTEMPTS);
    k.h.t.clock.advance(LEASE + 1);
    const recovered = await Promise.all([1, 2, 3].map(() => k.h.queue.recoverLapsedLeases()));
    expect(recovered.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await k.row(id)).toMatchObject({
      status: def.moves.fail.to,
      error: def.workerLost(MAX_ATTEMPTS),
    });
    expect(await k.refunds(id)).toEqual([price]);
    expect(await k.balance(walletId)).toBe(FUNDS);
    expect(await k.h.queue.recoverLapsedLeases()).toBe(0);
  });
}

function startCancelCases<Row extends JobColumns>(fx: KindFixture<Row>, k: Harness<Row>) {
  const started = fx.def.moves[fx.startMove]?.to;
  const cancelled = fx.def.moves[fx.cancelMove]?.to;

  it("start and cancel racing on a job: one wins, and only a winning cancel refunds", async () => {
    const walletId = await k.wallet();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await k.created(walletId));
    // Three starts and three cancels per job, issued in alternating order from job to job.
    const wins = await Promise.all(
      ids.map(async (id, j) => {
        const tries = await Promise.all(
          Array.from({ length: 6 }, (_, i) => ((i + j) % 2 ? k.cancel(id) : k.start(id))),
        );
        return tries.filter(Boolean).length;
      }),
    );
    expect(wins).toEqual(ids.map(() => 1));
    let charged = 0;
    for (const id of ids) {
      const { status } = await k.row(id);
      expect([started, cancelled]).toContain(status);
      const price = await k.price(id);
      expect(await k.refunds(id)).toEqual(status === cancelled ? [price] : []);
      if (status === started) charged += price;
    }
    expect(await k.balance(walletId)).toBe(FUNDS - charged);
  });

  it("a cancel after a start, or a second cancel, moves nothing and refunds nothing", async () => {
    const walletId = await k.wallet();
    const a = await k.created(walletId);
    expect(await k.start(a)).toBeDefined();
    expect(await k.cancel(a)).toBeUndefined();
    expect(await k.refunds(a)).toEqual([]);
    const b = await k.created(walletId);
    expect((await k.cancel(b))?.status).toBe(cancelled);
    expect(await k.cancel(b)).toBeUndefined();
    expect(await k.start(b)).toBeUndefined();
    expect(await k.refunds(b)).toEqual([await k.price(b)]);
  });
}

function retentionCases<Row extends JobColumns>(fx: KindFixture<Row>, k: Harness<Row>) {
  const { def } = fx;
  it("the sweep deletes ended jobs' files and marks the rows, refunding an unstarted job once", async () => {
    const walletId = await k.wallet();
    const unstarted = await k.created(walletId);
    const createdStatus = (await k.row(unstarted)).status;
    const done = await ready(k, walletId);
    const failed = await ready(k, walletId);
    expect((await k.h.queue.claim("w", LEASE))?.jobId).toBe(done);
    expect((await k.h.queue.claim("w", LEASE))?.jobId).toBe(failed);
    expect(await k.h.queue.complete(done, "w", fx.result)).toBe("ok");
    expect(await k.h.queue.fail(failed, "w", { kind: "final", message: "broken" })).toBe("ok");
    const ids = [unstarted, done, failed];

    const sweep = () => sweepJobs(def, k.h.deps);
    await sweep();
    for (const id of ids) expect((await k.row(id)).files_deleted_at).toBeNull();
    expect((await k.row(unstarted)).status).toBe(createdStatus);

    k.h.t.clock.advance((k.h.deps.retentionHours + 48) * 3600_000);
    await Promise.all([sweep(), sweep()]);
    await sweep();
    for (const id of ids) {
      expect((await k.row(id)).files_deleted_at).not.toBeNull();
      expect(await k.filesGone(id)).toBe(true);
    }
    const moveFor = (status: string) => {
      const rule = def.retention(k.h.deps).find((r) => r.move && r.statuses.includes(status));
      const move = rule?.move ? def.moves[rule.move] : undefined;
      if (!move) throw new Error(`${def.kind} has no retention move out of ${status}`);
      return move;
    };
    expect((await k.row(done)).status).toBe(moveFor(def.moves.complete.to).to);
    expect(await k.refunds(done)).toEqual([]);
    const expiry = moveFor(createdStatus);
    expect((await k.row(unstarted)).status).toBe(expiry.to);
    expect(await k.refunds(unstarted)).toEqual(expiry.refunds ? [await k.price(unstarted)] : []);
    // An ended job keeps its status; only its files go (its refund came with the failure).
    expect((await k.row(failed)).status).toBe(def.moves.fail.to);
    expect(await k.refunds(failed)).toEqual([await k.price(failed)]);
  });
}

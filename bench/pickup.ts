/**
 * Job pickup latency: from a job becoming claimable (insert + notify, as start does) to an
 * in-process worker holding it, p50/p99 — vs the claim statement's own round trip (the floor).
 */
import { sql } from "kysely";
import type { Database } from "../src/db/database.js";
import { jobEngineDeps } from "../src/feature.js";
import { createJobQueue } from "../src/jobs/queue.js";
import { JOBS_CHANNEL } from "../src/jobs/work.js";
import { createDbWorkSource } from "../src/jobs/work-source.js";
import { restoreInputKey, restoreJobs } from "../src/kinds/restore/services/definition.js";
import { benchPlatform, type Figure, percentile } from "./lib.js";

export async function benchPickup(
  database: Database,
  label: string,
  jobs: number,
): Promise<Figure[]> {
  let wake = () => {};
  const p = {
    ...benchPlatform(database),
    async notifyJobs() {
      wake();
      await sql`SELECT pg_notify(${JOBS_CHANNEL}, '')`.execute(database.db);
    },
  };
  const queue = createJobQueue(restoreJobs, jobEngineDeps(p));
  const source = await createDbWorkSource(database, [queue], { leaseMs: 60_000 });
  wake = source.wake;
  const insert = async () => {
    const id = p.ids("rj");
    const now = new Date();
    await p.db
      .insertInto("restore_jobs")
      .values({
        id,
        wallet_id: null,
        agent_key_id: null,
        email: "bench@example.com",
        status: "processing",
        quality: "faithful",
        amount_cents: 299,
        declared_amount_cents: 299,
        duration_sec: 10,
        width: null,
        height: null,
        filename: "b.mp4",
        content_type: "video/mp4",
        size_bytes: 1,
        paid_from_balance: false,
        payment_ref: "bench",
        max_attempts: 3,
        input_key: restoreInputKey(id),
        created_at: now,
        updated_at: now,
        queued_at: now,
        expires_at: now,
      })
      .execute();
  };
  const pickup: number[] = [];
  for (let i = 0; i < jobs; i++) {
    const claimed = source.claim(["restore"], "bench-w", 5000);
    await new Promise((r) => setTimeout(r, 2)); // the worker is waiting, as it would be
    const t0 = performance.now();
    await insert();
    await p.notifyJobs();
    const item = await claimed;
    pickup.push(performance.now() - t0);
    if (!item) throw new Error("no job claimed");
  }
  // Floor: insert + the claim statement directly, no waiting worker.
  const floor: number[] = [];
  for (let i = 0; i < jobs; i++) {
    const t0 = performance.now();
    await insert();
    await queue.claim("bench-direct", 60_000);
    floor.push(performance.now() - t0);
  }
  await source.close();
  return [50, 99].map((pc) => ({
    name: `job pickup p${pc} (${label}, in-process)`,
    value: percentile(pickup, pc),
    unit: "ms",
    baselineName: "insert+claim direct",
    baseline: percentile(floor, pc),
    better: "lower" as const,
    aim: "p50 < 10 ms",
  }));
}

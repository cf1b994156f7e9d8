/**
 * Webhook invariants of the simulation: every job of a wallet that reached a final status has
 * exactly one `job.completed` event (whichever actor's move ended it: a worker, the lease
 * recovery, a cancel, the sweeper), with one delivery per endpoint of its wallet; a job not yet
 * final has none. At the end, the events are delivered to a real receiver and each final job
 * arrives once, under one event id.
 */
import { sql } from "kysely";
import { expect } from "vitest";
import type { TestApp } from "../app.js";
import type { Received } from "../webhooks/receiver.js";
import { kindNamed, servedKinds } from "./model.js";

interface JobEvents {
  id: string;
  status: string;
  kind: string;
  events: number;
  deliveries: number;
  endpoints: number;
}

/** Whether the status is one of the kind's final ones (its definition's). */
const isFinal = (job: JobEvents) => kindNamed(job.kind).definition.final.includes(job.status);

/** Every wallet job with its completed events, their deliveries and its wallet's endpoints. */
export async function jobsWithEvents(t: TestApp): Promise<JobEvents[]> {
  // Every served kind's job table (the engine's columns are the same in each).
  const tables = servedKinds(t).map(
    (k) =>
      sql`SELECT id, status, wallet_id, ${sql.lit(k.name)} AS kind FROM ${sql.table(k.table)}
        WHERE wallet_id IS NOT NULL`,
  );
  const result = await sql<JobEvents>`
    WITH jobs AS (${sql.join(tables, sql` UNION ALL `)})
    SELECT j.id, j.status, j.kind,
      (SELECT count(*) FROM webhook_events e WHERE e.job_id = j.id AND e.type = 'job.completed')::int AS events,
      (SELECT count(*) FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
       WHERE e.job_id = j.id AND e.type = 'job.completed')::int AS deliveries,
      (SELECT count(*) FROM webhook_endpoints w WHERE w.wallet_id = j.wallet_id)::int AS endpoints
    FROM jobs j`.execute(t.deps.db);
  return result.rows;
}

export async function checkCompletedEvents(t: TestApp): Promise<void> {
  for (const job of await jobsWithEvents(t)) {
    const final = isFinal(job);
    expect(job.events, `${job.id} (${job.status}) completed events`).toBe(final ? 1 : 0);
    expect(job.deliveries, `${job.id} completed deliveries`).toBe(final ? job.endpoints : 0);
  }
}

/** What the receiver got: each final job once, under one event id, with its final status. */
export async function checkReceived(t: TestApp, received: readonly Received[]): Promise<number> {
  const byJob = new Map<string, Set<string>>();
  for (const r of received) {
    const body = JSON.parse(r.body) as { type: string; data: { id: string; status: string } };
    if (body.type !== "job.completed") continue;
    byJob.set(body.data.id, (byJob.get(body.data.id) ?? new Set()).add(r.id));
  }
  let finals = 0;
  for (const job of await jobsWithEvents(t)) {
    const final = isFinal(job);
    if (final) finals++;
    expect(byJob.get(job.id)?.size ?? 0, `${job.id} event ids received`).toBe(final ? 1 : 0);
  }
  const ids = [...byJob.values()].flatMap((s) => [...s]);
  expect(
    received.filter((r) => ids.includes(r.id)),
    "each event received once",
  ).toHaveLength(ids.length);
  return finals;
}

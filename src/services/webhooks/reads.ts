/**
 * The latest deliveries as reads show them: of a job's own webhook_url, and of an endpoint.
 * A job's read shows only the deliveries to its own webhook_url, never those to the wallet's
 * endpoints: a restore job is read by anyone holding its id (the checkout's payer too) and an
 * agent key reads its own jobs, while endpoints are the wallet key's alone (GET /wallet/webhooks
 * shows their deliveries). Batched: one query per read of many jobs or endpoints.
 */
import { sql } from "kysely";
import type { JobWebhookView, WebhookDeliveryView } from "../../api/webhooks.js";
import type { Db } from "../../jobs/definition.js";

/** How many deliveries a read shows per job or endpoint. */
export const DELIVERIES_SHOWN = 10;

interface DeliveryWithType {
  id: string;
  event_id: string;
  type: string;
  endpoint_id: string | null;
  state: WebhookDeliveryView["state"];
  attempts: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
  owner: string;
}

/** A timestamp column as ISO 8601 text; a nullable one stays null when empty. */
function iso(d: Date): string;
function iso(d: Date | null): string | null;
function iso(d: Date | null): string | null {
  return d ? new Date(d).toISOString() : null;
}

function view(d: DeliveryWithType): WebhookDeliveryView {
  return {
    id: d.id,
    event_id: d.event_id,
    type: d.type,
    endpoint_id: d.endpoint_id,
    state: d.state,
    attempts: Number(d.attempts),
    next_attempt_at: d.state === "pending" ? iso(d.next_attempt_at) : null,
    last_attempt_at: iso(d.last_attempt_at),
    last_status_code: d.last_status_code === null ? null : Number(d.last_status_code),
    last_error: d.last_error,
    delivered_at: iso(d.delivered_at),
    created_at: iso(d.created_at),
  };
}

async function latest(db: Db, column: "job_id" | "endpoint_id", ids: readonly string[]) {
  const byOwner = new Map<string, WebhookDeliveryView[]>();
  if (ids.length === 0) return byOwner;
  const owner = column === "job_id" ? sql.ref("e.job_id") : sql.ref("d.endpoint_id");
  // A job's own webhook_url is the delivery without an endpoint.
  const own = column === "job_id" ? sql`AND d.endpoint_id IS NULL` : sql``;
  const rows = await sql<DeliveryWithType>`
    SELECT * FROM (
      SELECT d.*, e.type, ${owner} AS owner,
             row_number() OVER (PARTITION BY ${owner} ORDER BY d.created_at DESC, d.id DESC) AS n
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE ${owner} IN (${sql.join(ids)}) ${own}
    ) ranked WHERE n <= ${DELIVERIES_SHOWN}
    ORDER BY created_at DESC, id DESC`.execute(db);
  for (const row of rows.rows) {
    const list = byOwner.get(row.owner) ?? [];
    list.push(view(row));
    byOwner.set(row.owner, list);
  }
  return byOwner;
}

/** Each job's own webhook with its latest deliveries to it; jobs without one are absent. */
export async function jobWebhookViews(
  db: Db,
  jobIds: readonly string[],
): Promise<Map<string, JobWebhookView>> {
  const out = new Map<string, JobWebhookView>();
  if (jobIds.length === 0) return out;
  const hooks = await db
    .selectFrom("job_webhooks")
    .select(["job_id", "url", "events"])
    .where("job_id", "in", jobIds)
    .execute();
  const deliveries = await latest(db, "job_id", jobIds);
  for (const h of hooks) {
    out.set(h.job_id, { url: h.url, events: h.events, deliveries: deliveries.get(h.job_id) ?? [] });
  }
  return out;
}

/** Each endpoint's latest deliveries. */
export function endpointDeliveries(db: Db, endpointIds: readonly string[]) {
  return latest(db, "endpoint_id", endpointIds);
}

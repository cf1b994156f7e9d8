/**
 * The webhook outbox, written inside the transaction of the change that causes an event: a job
 * move (the engine calls it from moveJob, the claim and heartbeats — for any kind), a credit or
 * a charge (the ledger). One statement finds the event's receivers — the job's own webhook_url
 * when its filter names the event, and the wallet's enabled endpoints subscribed to its type —
 * and, only when there is one, inserts the event and one pending delivery per receiver. So an
 * event is never lost once its cause committed, and nothing is written nobody listens to.
 * Delivering is services/webhooks' work (claimed like jobs, on any node).
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { DB } from "../db/schema.js";
import { type JobEvent, jobEventType, TEST_EVENT_TYPE } from "../domain/webhooks.js";

/** Delivery nodes LISTEN here; a NOTIFY is sent only when deliveries were written. */
export const WEBHOOK_CHANNEL = "kinora_webhooks";

interface OutboxEvent {
  walletId: string;
  type: string;
  /** Job events: which job, and the status it entered. */
  job?: { kind: string; id: string; status: string; event: JobEvent };
  /** Wallet events: the payload's data as of now. */
  data?: unknown;
  /** At most one event per key (a job's completion, a key's limit at one spent amount). */
  dedupeKey?: string;
  /** Only this endpoint, whatever it subscribed to (the owner's "send test event"). */
  onlyEndpointId?: string;
}

/** A webhook-id: `msg_` and 128 random bits, stable across every retry of the event. */
function newEventId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

function receivers(event: OutboxEvent) {
  if (event.onlyEndpointId !== undefined) {
    return sql`SELECT id AS endpoint_id, url FROM webhook_endpoints
      WHERE id = ${event.onlyEndpointId} AND wallet_id = ${event.walletId} AND deleted_at IS NULL`;
  }
  const endpoints = sql`SELECT id AS endpoint_id, url FROM webhook_endpoints
    WHERE wallet_id = ${event.walletId} AND deleted_at IS NULL AND disabled_at IS NULL
      AND ${event.type} = ANY (events)`;
  if (!event.job) return endpoints;
  return sql`SELECT NULL::text AS endpoint_id, url FROM job_webhooks
      WHERE job_id = ${event.job.id} AND ${event.job.event} = ANY (events)
    UNION ALL ${endpoints}`;
}

/**
 * Writes the event and its deliveries when anyone listens; the event id, or null when nobody
 * does (or the dedupe key was already used). Call it inside the causing change's transaction.
 */
export async function enqueueWebhookEvent(
  db: Kysely<DB>,
  event: OutboxEvent,
  now: Date,
): Promise<string | null> {
  const id = newEventId();
  const data = event.data === undefined ? null : JSON.stringify(event.data);
  const result = await sql<{ event_id: string }>`
    WITH subs AS (${receivers(event)}), ev AS (
      INSERT INTO webhook_events
        (id, wallet_id, type, job_kind, job_id, job_status, data, dedupe_key, created_at)
      SELECT ${id}, ${event.walletId}, ${event.type}, ${event.job?.kind ?? null},
             ${event.job?.id ?? null}, ${event.job?.status ?? null}, ${data}::jsonb,
             ${event.dedupeKey ?? null}, ${now}
      WHERE EXISTS (SELECT 1 FROM subs)
      ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING
      RETURNING id
    )
    INSERT INTO webhook_deliveries (id, event_id, wallet_id, endpoint_id, url, next_attempt_at, created_at)
    SELECT 'dlv_' || substr(ev.id, 5) || '_' || row_number() OVER (), ev.id, ${event.walletId},
           subs.endpoint_id, subs.url, ${now}, ${now}
    FROM ev CROSS JOIN subs
    RETURNING event_id`.execute(db);
  const written = result.rows[0]?.event_id ?? null;
  // Wakes delivery nodes at commit (a fallback poll covers a missed notification).
  if (written) await sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, '')`.execute(db);
  return written;
}

/** A job's event (started, progress, completed) from the row as the change left it. */
export async function enqueueJobEvent(
  db: Kysely<DB>,
  job: { kind: string; row: { id: string; status: string; wallet_id: string | null } },
  event: JobEvent,
  now: Date,
): Promise<string | null> {
  const { row } = job;
  // A job nobody's key created (paid by checkout without a key) has no wallet to listen.
  if (row.wallet_id === null) return null;
  return enqueueWebhookEvent(
    db,
    {
      walletId: row.wallet_id,
      type: jobEventType(event),
      job: { kind: job.kind, id: row.id, status: row.status, event },
      // Exactly one completion per job, whichever actor's move got there.
      ...(event === "completed" ? { dedupeKey: `job.completed:${row.id}` } : {}),
    },
    now,
  );
}

/** The owner's test event, to one endpoint. */
export function enqueueTestEvent(db: Kysely<DB>, walletId: string, endpointId: string, now: Date) {
  return enqueueWebhookEvent(
    db,
    {
      walletId,
      type: TEST_EVENT_TYPE,
      onlyEndpointId: endpointId,
      data: { message: "A test event sent from kinora on the wallet owner's request." },
    },
    now,
  );
}

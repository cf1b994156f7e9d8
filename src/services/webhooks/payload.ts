/**
 * The body of a delivery: `{type, timestamp, data}` (the Standard Webhooks shape). A job
 * event's data is the job exactly as the REST read shows it, rendered by the job's kind when
 * the attempt is sent: its links are fresh however late a retry goes out (a snapshot's 1-hour
 * download link would be dead after a receiver's long outage), and the move's transaction stays
 * small. What the event says happened — its type, the status entered, when — is fixed when it
 * is written. Wallet events carry the data written with them.
 */
import type { Selectable } from "kysely";
import type { WebhookEventsTable } from "../../db/schema.js";
import type { Db, JobColumns, JobDefinition } from "../../jobs/definition.js";
import { findJobRow } from "../../jobs/move.js";

/** How one kind shows a job: its definition (where the row is) and its REST view. */
export interface JobViewKind {
  // cast: kinds have different rows; a payload reads only the engine's columns through the definition
  // biome-ignore lint/suspicious/noExplicitAny: kinds have different rows
  definition: JobDefinition<any, any>;
  /** The REST view of a row; absent: the engine's columns (a kind only tests have). */
  // cast: each kind's view takes its own row type (contravariant), so the list's type can only say any
  // biome-ignore lint/suspicious/noExplicitAny: each kind's view takes its own row
  view?(row: any): Promise<unknown>;
}

export type WebhookEventRow = Selectable<WebhookEventsTable>;

/** The engine's columns, for a kind that has no view (a test kind). */
function engineView(row: JobColumns) {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    error: row.error,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    finished_at: iso(row.finished_at),
  };
}

async function jobData(db: Db, kinds: readonly JobViewKind[], event: WebhookEventRow) {
  const kind = kinds.find((k) => k.definition.kind === event.job_kind);
  if (!kind || !event.job_id) return { id: event.job_id, status: event.job_status };
  const row = await findJobRow(db, kind.definition, event.job_id);
  if (!row) return { id: event.job_id, status: event.job_status };
  return kind.view ? kind.view(row) : engineView(row);
}

/** The JSON body of an attempt to deliver `event`. */
export async function renderBody(
  db: Db,
  kinds: readonly JobViewKind[],
  event: WebhookEventRow,
): Promise<string> {
  const data = event.job_kind ? await jobData(db, kinds, event) : event.data;
  return JSON.stringify({
    type: event.type,
    timestamp: new Date(event.created_at).toISOString(),
    data,
  });
}

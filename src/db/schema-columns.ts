/** The column types the table types share (timestamps as Kysely reads and writes them). */
import type { ColumnType, Generated } from "kysely";

/** A timestamp column: read as a Date, written as a Date or an ISO string. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A timestamp column that may be NULL. */
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

/**
 * The job engine's columns, as every job kind's table has them with its statuses `S` (a kind's
 * own table type extends this in the kind's folder and joins DB from there; the row the engine
 * reads is jobs/definition.ts JobColumns).
 */
export interface JobTable<S extends string> {
  id: string;
  status: S;
  wallet_id: string | null;
  agent_key_id: string | null;
  amount_cents: number;
  attempts: Generated<number>;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  progress: number | null;
  error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  queued_at: NullableTimestamp;
  started_at: NullableTimestamp;
  /** When, and by which worker, the current (or last) attempt was claimed. */
  claimed_at: NullableTimestamp;
  claimed_by: string | null;
  finished_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  files_deleted_at: NullableTimestamp;
}

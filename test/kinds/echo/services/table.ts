/**
 * The echo kind's table: its type (which joins the database's table list from here, the kind's
 * own folder) and its creation — what a real kind's migration would hold.
 */
import { type Selectable, sql } from "kysely";
import type { JobTable, Timestamp } from "../../../../src/db/schema-columns.js";
import type { Db } from "../../../../src/jobs/definition.js";
import type { EchoStatus } from "../rules/transitions.js";

/** echo_jobs: the engine's columns and echo's own (the text's key and size, shout, result). */
export interface EchoJobsTable extends Omit<JobTable<EchoStatus>, "wallet_id"> {
  wallet_id: string;
  input_key: string;
  text_bytes: number;
  shout: boolean;
  upload_expires_at: Timestamp;
  result: string | null;
}

declare module "../../../../src/db/schema.js" {
  interface DB {
    echo_jobs: EchoJobsTable;
  }
}

/** A row of echo_jobs. */
export type EchoRow = Selectable<EchoJobsTable>;

/** Creates the table (the test's stand-in for the kind's migration). */
export async function createEchoTable(db: Db): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS echo_jobs (
      id text PRIMARY KEY,
      status text NOT NULL,
      wallet_id text NOT NULL REFERENCES wallets(id),
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
      text_bytes integer NOT NULL,
      shout boolean NOT NULL,
      upload_expires_at timestamptz NOT NULL,
      result text
    )`.execute(db);
}

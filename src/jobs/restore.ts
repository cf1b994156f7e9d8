/**
 * Cloud restore as a job kind: `processing` without a lease waits for a worker, with one it
 * runs. A balance-paid job is refunded to the balance and key allowance; a checkout-paid one
 * through the card-refund outbox (written in the same transaction).
 */
import type { Selectable } from "kysely";
import type { RestoreJobsTable } from "../db/schema.js";
import { RESTORE_MESSAGES, RESTORE_MOVES } from "../domain/restore/transitions.js";
import { type LedgerEvents, refundJob } from "../services/ledger.js";
import { restoreOutputKey } from "../storage/keys.js";
import type { Db, JobDefinition, JobEngineDeps } from "./definition.js";
import { OUTPUT_TOKEN_HEADER, signOutputToken } from "./output-token.js";

export type RestoreJobRow = Selectable<RestoreJobsTable>;

/** Input links for workers and output tokens live this long (a long restore plus retries). */
export const WORKER_URL_LIFETIME_SEC = 12 * 3600;
/** Largest restored file a worker may store. */
export const MAX_OUTPUT_BYTES = 4 * 1024 ** 3;

/** Balance refund (no-op for card-paid jobs) plus the card-refund outbox row when paid by card. */
export async function refundRestore(
  db: Db,
  row: RestoreJobRow,
  reason: string,
  events?: LedgerEvents,
): Promise<void> {
  await refundJob(db, row.id, reason, events);
  if (!row.paid_from_balance && row.payment_ref !== null) {
    await db
      .insertInto("restore_card_refunds")
      .values({ job_id: row.id, amount_cents: row.amount_cents, reason })
      .onConflict((oc) => oc.column("job_id").doNothing())
      .execute();
  }
}

async function workItem(row: RestoreJobRow, deps: JobEngineDeps) {
  const expSec = Math.floor(deps.clock().getTime() / 1000) + WORKER_URL_LIFETIME_SEC;
  const token = signOutputToken(deps.signer, {
    key: restoreOutputKey(row.id),
    jobId: row.id,
    maxBytes: MAX_OUTPUT_BYTES,
    expSec,
  });
  return {
    inputUrl: await deps.storage.presignDownload(row.input_key, {
      expiresInSec: WORKER_URL_LIFETIME_SEC,
    }),
    outputUrl: `${deps.publicUrl}/worker/output-ticket`,
    outputHeaders: { [OUTPUT_TOKEN_HEADER]: token },
    params: {
      quality: row.quality,
      declaredDurationSec: row.duration_sec,
      sizeBytes: Number(row.size_bytes),
      filename: row.filename,
      contentType: row.content_type,
    },
  };
}

export const restoreJobs: JobDefinition<RestoreJobRow> = {
  kind: "restore",
  table: "restore_jobs",
  moves: RESTORE_MOVES,
  waiting: "processing",
  running: "processing",
  workItem,
  refund: refundRestore,
  variant: (row) => row.quality,
  async finish(row, result, deps) {
    // A worker's word is not enough: `done` promises a download, so the result must be stored.
    const outputKey = restoreOutputKey(row.id);
    if (!(await deps.storage.head(outputKey))) return { retry: RESTORE_MESSAGES.outputMissing };
    const measured = result.meta.measuredDurationSec;
    return {
      set: {
        output_key: outputKey,
        measured_duration_sec: typeof measured === "number" ? measured : null,
      },
    };
  },
  end: (failure) => ({ move: failure.kind === "too_long" ? "refuse" : "fail" }),
  exhausted: RESTORE_MESSAGES.attemptsExhausted,
  workerLost: (attempts) =>
    RESTORE_MESSAGES.attemptsExhausted(attempts, RESTORE_MESSAGES.workerLost),
  files: (row) => [row.input_key, restoreOutputKey(row.id)],
  // The input is no longer needed once the result exists; after a failure it stays until
  // retention (the caller may want to see what went wrong — and a card refund may be pending).
  filesAfterEnd: (row, outcome) => (outcome === "done" ? [row.input_key] : []),
  retention(deps) {
    const now = (d: Date) => d;
    const retentionMs = deps.retentionHours * 3600_000;
    const expire = (error: string) => (row: RestoreJobRow, at: Date) => ({
      error,
      finished_at: row.finished_at ?? at,
    });
    return [
      {
        statuses: ["done"],
        due: { column: "expires_at", before: now },
        move: "retentionExpired",
        set: expire(RESTORE_MESSAGES.retention(deps.retentionHours)),
      },
      {
        statuses: ["awaiting_upload"],
        due: { column: "expires_at", before: now },
        move: "uploadExpired",
        set: expire(RESTORE_MESSAGES.uploadExpired),
      },
      {
        statuses: ["pending_payment"],
        due: { column: "expires_at", before: now },
        move: "unpaidExpired",
        set: expire(RESTORE_MESSAGES.unpaidExpired),
      },
      // Ended jobs keep their status; only their files go.
      {
        statuses: ["failed", "refunded", "cancelled"],
        due: { column: "finished_at", before: (d) => new Date(d.getTime() - retentionMs) },
      },
    ];
  },
};

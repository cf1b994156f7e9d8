/**
 * The restore JobQueue: claim under a lease with FOR UPDATE SKIP LOCKED, heartbeat, complete,
 * fail (retry / final / too long) and lapsed-lease recovery. Every move is conditional on the
 * status and the lease owner, through moveJob, and refunds commit with the move.
 */
import { sql } from "kysely";
import { RESTORE_MESSAGES } from "../../domain/restore/transitions.js";
import { OUTPUT_TOKEN_HEADER, signOutputToken } from "../../http/routes/worker/output-token.js";
import type { Platform } from "../../platform.js";
import { restoreOutputKey } from "../../storage/keys.js";
import type { JobQueue, WorkFailure, WorkItem, WorkResult } from "../../workers/types.js";
import { inTx, moveJob, type RestoreJobRow } from "./store.js";

/** Input links for workers and output tokens live this long (a long restore plus retries). */
export const WORKER_URL_LIFETIME_SEC = 12 * 3600;
/** Largest restored file a worker may store. */
export const MAX_OUTPUT_BYTES = 4 * 1024 ** 3;

const LOST_WORKER = "The worker processing this job stopped responding; the job will be retried.";

const retentionMs = (p: Platform) => p.config.retentionHours * 3600_000;

async function workItem(p: Platform, row: RestoreJobRow): Promise<WorkItem> {
  const expSec = Math.floor(p.clock().getTime() / 1000) + WORKER_URL_LIFETIME_SEC;
  const token = signOutputToken(p.signingSecret, {
    key: restoreOutputKey(row.id),
    jobId: row.id,
    maxBytes: MAX_OUTPUT_BYTES,
    expSec,
  });
  return {
    kind: "restore",
    jobId: row.id,
    attempt: row.attempts,
    leaseExpiresAt: new Date(row.lease_expires_at as Date).toISOString(),
    inputUrl: await p.storage.presignDownload(row.input_key, {
      expiresInSec: WORKER_URL_LIFETIME_SEC,
    }),
    outputUrl: `${p.publicUrl}/worker/output-ticket`,
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

/** The oldest started job without a lease, leased to workerId; null when none waits. */
async function claim(p: Platform, workerId: string, leaseMs: number) {
  const now = p.clock();
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const result = await sql<RestoreJobRow>`
    UPDATE restore_jobs
    SET lease_owner = ${workerId}, lease_expires_at = ${leaseUntil}, attempts = attempts + 1,
        started_at = COALESCE(started_at, ${now}), updated_at = ${now}
    WHERE id = (
      SELECT id FROM restore_jobs
      WHERE status = 'processing' AND lease_expires_at IS NULL
      ORDER BY queued_at LIMIT 1 FOR UPDATE SKIP LOCKED
    ) AND status = 'processing' AND lease_expires_at IS NULL
    RETURNING *`.execute(p.db);
  const row = result.rows[0];
  return row ? workItem(p, row) : null;
}

async function heartbeat(
  p: Platform,
  jobId: string,
  workerId: string,
  leaseMs: number,
  progress: number | null,
) {
  const now = p.clock();
  const row = await p.db
    .updateTable("restore_jobs")
    .set((eb) => ({
      lease_expires_at: new Date(now.getTime() + leaseMs),
      progress: progress === null ? eb.ref("progress") : progress,
      updated_at: now,
    }))
    .where("id", "=", jobId)
    .where("status", "=", "processing")
    .where("lease_owner", "=", workerId)
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

async function complete(p: Platform, jobId: string, workerId: string, result: WorkResult) {
  const now = p.clock();
  const measured = result.meta.measuredDurationSec;
  const moved = await moveJob(p.db, {
    id: jobId,
    from: "processing",
    to: "done",
    now,
    leaseOwner: workerId,
    set: {
      output_key: restoreOutputKey(jobId),
      measured_duration_sec: typeof measured === "number" ? measured : null,
      progress: 1,
      error: null,
      finished_at: now,
      lease_owner: null,
      lease_expires_at: null,
      expires_at: new Date(now.getTime() + retentionMs(p)),
    },
  });
  // The input is no longer needed once the result exists: delete it now, not at retention.
  if (moved) await p.storage.delete(moved.input_key).catch(() => {});
}

/** retry → requeue (until the last attempt); final → failed; too_long → refunded. */
async function fail(p: Platform, jobId: string, workerId: string, failure: WorkFailure) {
  const row = await p.db
    .selectFrom("restore_jobs")
    .selectAll()
    .where("id", "=", jobId)
    .where("status", "=", "processing")
    .where("lease_owner", "=", workerId)
    .executeTakeFirst();
  if (!row) return;
  const now = p.clock();
  const exhausted = failure.kind === "retry" && row.attempts >= row.max_attempts;
  if (failure.kind === "retry" && !exhausted) {
    const moved = await moveJob(p.db, {
      id: row.id,
      from: "processing",
      to: "processing",
      now,
      leaseOwner: workerId,
      set: { lease_owner: null, lease_expires_at: null, progress: 0, error: null },
    });
    if (moved) await p.notifyJobs();
    return;
  }
  const to = failure.kind === "too_long" ? "refunded" : "failed";
  const error = exhausted
    ? RESTORE_MESSAGES.attemptsExhausted(row.attempts, failure.message)
    : failure.message;
  await inTx(p.db, (tx) =>
    moveJob(tx, {
      id: row.id,
      from: "processing",
      to,
      now,
      leaseOwner: workerId,
      set: { error, finished_at: now, lease_owner: null, lease_expires_at: null },
      refundReason: `restore ${row.id} ${to}: ${failure.kind}`,
    }),
  );
}

async function recoverLapsedLeases(p: Platform) {
  const now = p.clock();
  const lapsed = await p.db
    .selectFrom("restore_jobs")
    .selectAll()
    .where("status", "=", "processing")
    .where("lease_expires_at", "<", now)
    .limit(100)
    .execute();
  let n = 0;
  for (const row of lapsed) {
    if (await recoverOne(p, row, now)) n++;
  }
  if (n > 0) await p.notifyJobs();
  return n;
}

export function createRestoreQueue(p: Platform): JobQueue {
  return {
    kind: "restore",
    claim: (workerId, leaseMs) => claim(p, workerId, leaseMs),
    heartbeat: (jobId, workerId, leaseMs, progress) =>
      heartbeat(p, jobId, workerId, leaseMs, progress),
    complete: (jobId, workerId, result) => complete(p, jobId, workerId, result),
    fail: (jobId, workerId, failure) => fail(p, jobId, workerId, failure),
    recoverLapsedLeases: () => recoverLapsedLeases(p),
  };
}

async function recoverOne(p: Platform, row: RestoreJobRow, now: Date): Promise<boolean> {
  const base = {
    id: row.id,
    from: "processing" as const,
    now,
    leaseOwner: row.lease_owner ?? "",
    leaseExpiredBefore: now,
  };
  if (row.attempts < row.max_attempts) {
    const moved = await moveJob(p.db, {
      ...base,
      to: "processing",
      set: { lease_owner: null, lease_expires_at: null, progress: 0, error: null },
    });
    return moved !== undefined;
  }
  const moved = await inTx(p.db, (tx) =>
    moveJob(tx, {
      ...base,
      to: "failed",
      set: {
        error: RESTORE_MESSAGES.attemptsExhausted(
          row.attempts,
          LOST_WORKER.replace("; the job will be retried.", "."),
        ),
        finished_at: now,
        lease_owner: null,
        lease_expires_at: null,
      },
      refundReason: `restore ${row.id} failed: worker lost on the last attempt`,
    }),
  );
  return moved !== undefined;
}

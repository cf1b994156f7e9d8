/**
 * The restore retention sweeper (run every minute by `kinora serve`): deletes files past
 * retention and expires jobs that will never run. Each expiry is a conditional move, so a
 * sweep racing a start, a payment or a worker has exactly one winner. Time comes from the
 * platform clock, so tests move time instead of sleeping.
 */
import type { RestoreStatus } from "../db/schema.js";
import { RESTORE_MESSAGES } from "../domain/restore/transitions.js";
import type { BackgroundTask, Platform } from "../platform.js";
import { inTx, moveJob, type RestoreJobRow } from "../services/restore/store.js";
import { restoreOutputKey } from "../storage/keys.js";

const BATCH = 100;

export interface SweepCounts {
  expiredDone: number;
  expiredUploads: number;
  expiredUnpaid: number;
  filesDeleted: number;
}

async function deleteFiles(p: Platform, row: RestoreJobRow): Promise<void> {
  await Promise.all([p.storage.delete(row.input_key), p.storage.delete(restoreOutputKey(row.id))]);
}

async function due(p: Platform, status: RestoreStatus, now: Date): Promise<RestoreJobRow[]> {
  return p.db
    .selectFrom("restore_jobs")
    .selectAll()
    .where("status", "=", status)
    .where("expires_at", "<", now)
    .orderBy("expires_at")
    .limit(BATCH)
    .execute();
}

async function expire(p: Platform, row: RestoreJobRow, now: Date, error: string): Promise<boolean> {
  await deleteFiles(p, row);
  const moved = await inTx(p.db, (tx) =>
    moveJob(tx, {
      id: row.id,
      from: row.status,
      to: "expired",
      now,
      set: { error, files_deleted_at: now, finished_at: row.finished_at ?? now },
      refundReason: `restore ${row.id} expired: ${row.status}`,
    }),
  );
  return moved !== undefined;
}

/** Ended jobs (failed, refunded, cancelled) keep their status; only their files go. */
async function deleteEndedFiles(p: Platform, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - p.config.retentionHours * 3600_000);
  const rows = await p.db
    .selectFrom("restore_jobs")
    .selectAll()
    .where("status", "in", ["failed", "refunded", "cancelled"])
    .where("files_deleted_at", "is", null)
    .where("finished_at", "<", cutoff)
    .limit(BATCH)
    .execute();
  for (const row of rows) {
    await deleteFiles(p, row);
    await p.db
      .updateTable("restore_jobs")
      .set({ files_deleted_at: now, updated_at: now })
      .where("id", "=", row.id)
      .execute();
  }
  return rows.length;
}

export async function sweepRestoreJobs(p: Platform): Promise<SweepCounts> {
  const now = p.clock();
  const counts: SweepCounts = {
    expiredDone: 0,
    expiredUploads: 0,
    expiredUnpaid: 0,
    filesDeleted: 0,
  };
  const retention = RESTORE_MESSAGES.retention(p.config.retentionHours);
  for (const row of await due(p, "done", now)) {
    if (await expire(p, row, now, retention)) counts.expiredDone++;
  }
  for (const row of await due(p, "awaiting_upload", now)) {
    if (await expire(p, row, now, RESTORE_MESSAGES.uploadExpired)) counts.expiredUploads++;
  }
  for (const row of await due(p, "pending_payment", now)) {
    if (await expire(p, row, now, RESTORE_MESSAGES.unpaidExpired)) counts.expiredUnpaid++;
  }
  counts.filesDeleted = await deleteEndedFiles(p, now);
  return counts;
}

export function startRestoreSweeper(p: Platform, intervalMs = 60_000): BackgroundTask {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = sweepRestoreJobs(p).then(
      (c) => {
        if (c.expiredDone + c.expiredUploads + c.expiredUnpaid + c.filesDeleted > 0) {
          p.log.info("restore sweep", { ...c });
        }
      },
      (err) => p.log.error("restore sweep failed", { err }),
    );
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Retention of uploads in parts, one pass on the injected clock: an upload past its expiry, or
 * whose job no longer takes its file (cancelled, expired, gone — the upload guard says), is
 * aborted and its parts deleted (counted in the metrics by reason); an aborted upload is
 * aborted once more a while later (S3 may keep a part that was still arriving at the first);
 * an upload left "completing" by a crash is settled by whether its file exists; finished
 * records go after the retention period. Composition runs it periodically (features/core.ts).
 */
import type { UploadGuard } from "../../storage/blob-store.js";
import { abortRow, freeParts } from "./abort.js";
import type { UploadsDeps } from "./deps.js";

const BATCH = 100;
/** The second abort of an aborted upload comes this long after the first. */
export const REABORT_AFTER_MS = 10 * 60_000;
/** An upload still "completing" after this was left so by a crash. */
const STUCK_COMPLETING_MS = 3600_000;

/** What one pass did. */
export interface UploadSweep {
  expired: number;
  jobEnded: number;
  reaborted: number;
  settled: number;
  purged: number;
}

/** One pass; `guard` says whether an upload's file is still wanted (absent: expiry only). */
export async function sweepUploads(
  deps: UploadsDeps & { retentionHours: number },
  guard?: UploadGuard,
): Promise<UploadSweep> {
  const now = deps.clock();
  const out: UploadSweep = { expired: 0, jobEnded: 0, reaborted: 0, settled: 0, purged: 0 };
  const expired = await deps.db
    .selectFrom("multipart_uploads")
    .selectAll()
    .where("status", "=", "open")
    .where("expires_at", "<", now)
    .orderBy("expires_at")
    .limit(BATCH)
    .execute();
  for (const row of expired) if (await abortRow(deps, row, "expired")) out.expired++;
  if (guard) {
    const open = await deps.db
      .selectFrom("multipart_uploads")
      .selectAll()
      .where("status", "=", "open")
      .orderBy("created_at")
      .limit(10 * BATCH)
      .execute();
    for (const row of open) {
      if ((await guard(row.object_key)).ok) continue;
      if (await abortRow(deps, row, "job_ended")) out.jobEnded++;
    }
  }
  out.reaborted = await reabort(deps, now);
  out.settled = await settleStuck(deps, now);
  const before = new Date(now.getTime() - deps.retentionHours * 3600_000);
  const purged = await deps.db
    .deleteFrom("multipart_uploads")
    .where((eb) =>
      eb.or([
        eb("status", "=", "completed"),
        eb.and([eb("status", "=", "aborted"), eb("abort_confirmed_at", "is not", null)]),
      ]),
    )
    .where("updated_at", "<", before)
    .executeTakeFirst();
  out.purged = Number(purged.numDeletedRows);
  return out;
}

async function reabort(deps: UploadsDeps, now: Date): Promise<number> {
  const due = await deps.db
    .selectFrom("multipart_uploads")
    .selectAll()
    .where("status", "=", "aborted")
    .where("abort_confirmed_at", "is", null)
    .where("aborted_at", "<", new Date(now.getTime() - REABORT_AFTER_MS))
    .limit(BATCH)
    .execute();
  for (const row of due) {
    await freeParts(deps, row);
    await deps.db
      .updateTable("multipart_uploads")
      .set({ abort_confirmed_at: now, updated_at: now })
      .where("id", "=", row.id)
      .execute();
  }
  return due.length;
}

async function settleStuck(deps: UploadsDeps, now: Date): Promise<number> {
  const stuck = await deps.db
    .selectFrom("multipart_uploads")
    .selectAll()
    .where("status", "=", "completing")
    .where("updated_at", "<", new Date(now.getTime() - STUCK_COMPLETING_MS))
    .limit(BATCH)
    .execute();
  for (const row of stuck) {
    const whole = (await deps.storage.head(row.object_key))?.sizeBytes === Number(row.size_bytes);
    await deps.db
      .updateTable("multipart_uploads")
      .set(
        whole
          ? { status: "completed", completed_at: now, updated_at: now }
          : { status: "open", updated_at: now },
      )
      .where("id", "=", row.id)
      .where("status", "=", "completing")
      .execute();
  }
  return stuck.length;
}

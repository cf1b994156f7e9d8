/**
 * Retention of clips, run by the feature's sweeper on an injected clock:
 * - an awaiting_upload clip whose upload window passed is expired and refunded;
 * - a done clip past its retention is expired and its video deleted;
 * - images that arrived for clips that ended without using them are deleted.
 */
import { CLIP_UPLOAD_WINDOW_SEC } from "../../domain/clips/rules.js";
import type { ClipDeps } from "./deps.js";
import { moveClip } from "./moves.js";

const BATCH = 100;

export interface SweepResult {
  uploadsExpired: number;
  outputsDeleted: number;
  imagesDeleted: number;
}

export async function sweepClips(deps: ClipDeps): Promise<SweepResult> {
  const result = { uploadsExpired: 0, outputsDeleted: 0, imagesDeleted: 0 };
  const now = deps.clock();
  const waiting = await deps.db
    .selectFrom("clips")
    .select("id")
    .where("status", "=", "awaiting_upload")
    .where("upload_expires_at", "<", now)
    .limit(BATCH)
    .execute();
  for (const { id } of waiting) {
    const moved = await moveClip(
      deps.db,
      id,
      "uploadExpired",
      now,
      {
        error: `The image was not uploaded and started within ${CLIP_UPLOAD_WINDOW_SEC / 60} minutes; the price was refunded.`,
        finished_at: now,
      },
      { uploadClosedBefore: now },
    );
    if (moved) result.uploadsExpired++;
  }
  const finished = await deps.db
    .selectFrom("clips")
    .select(["id", "output_key"])
    .where("status", "=", "done")
    .where("expires_at", "<", now)
    .limit(BATCH)
    .execute();
  for (const { id, output_key } of finished) {
    if (output_key) await deps.storage.delete(output_key);
    const moved = await moveClip(
      deps.db,
      id,
      "retentionExpired",
      now,
      {
        error: `The clip's files were deleted after the ${deps.config.retentionHours}-hour retention period.`,
        files_deleted_at: now,
      },
      { expiresBefore: now },
    );
    if (moved) result.outputsDeleted++;
  }
  result.imagesDeleted = await deleteLeftoverImages(deps, now);
  return result;
}

/** Images uploaded late to cancelled or expired clips: their links have lapsed by now. */
async function deleteLeftoverImages(deps: ClipDeps, now: Date): Promise<number> {
  const rows = await deps.db
    .selectFrom("clips")
    .select(["id", "image_key"])
    .where("status", "in", ["cancelled", "expired"])
    .where("files_deleted_at", "is", null)
    .where("upload_expires_at", "<", now)
    .limit(BATCH)
    .execute();
  for (const row of rows) {
    await deps.storage.delete(row.image_key);
    await deps.db
      .updateTable("clips")
      .set({ files_deleted_at: now })
      .where("id", "=", row.id)
      .where("files_deleted_at", "is", null)
      .execute();
  }
  return rows.length;
}

/** Reading, starting and cancelling clips. Start and cancel are idempotent where a retry is. */

import { ApiError, wrongState } from "../../../domain/errors.js";
import { type WaitUntil, waitForChange } from "../../../jobs/watch.js";
import type { Principal } from "../../../services/auth.js";
import { ownedJobsPage, type PageInput } from "../../../services/pagination.js";
import type { ClipView } from "../api/schemas.js";
import { CLIP_IMAGE_MAX_BYTES, CLIP_IMAGE_TYPES, CLIP_LIST_MAX } from "../rules/rules.js";
import { CLIP_FINAL } from "../rules/transitions.js";
import type { ClipDeps } from "./deps.js";
import { moveClip } from "./moves.js";
import { type ClipRow, clipView, clipViews, findVisibleClip } from "./view.js";

/** A clip this key may see; with `waitMs`, after its status (or, per `until`, progress) changes. */
export async function getClip(
  deps: ClipDeps,
  principal: Principal,
  id: string,
  opts: {
    waitMs?: number;
    signal?: AbortSignal;
    until?: WaitUntil | undefined;
    onProgress?: ((progress: number) => void) | undefined;
  } = {},
) {
  const row = await waitForChange(
    deps.jobWatch,
    id,
    () => findVisibleClip(deps.db, principal, id),
    {
      waitMs: opts.waitMs ?? 0,
      final: CLIP_FINAL,
      signal: opts.signal,
      until: opts.until,
      onProgress: opts.onProgress && ((row) => opts.onProgress?.(row.progress ?? 0)),
    },
  );
  return clipView(row, deps);
}

/** A page of clips, newest first (default 40); an agent key sees only the clips it made. */
export async function listClipsPage(
  deps: ClipDeps,
  principal: Principal,
  input: PageInput = {},
): Promise<{ clips: ClipView[]; next_cursor: string | null }> {
  const limit = input.limit ?? CLIP_LIST_MAX;
  const { rows, nextCursor } = await ownedJobsPage(deps.db, "clips", principal, {
    limit,
    cursor: input.cursor,
    idPrefix: "clip",
  });
  return {
    clips: await clipViews(rows, deps),
    next_cursor: nextCursor,
  };
}

/** The 40 newest clips (the spec's list). */
export async function listClips(deps: ClipDeps, principal: Principal): Promise<ClipView[]> {
  return (await listClipsPage(deps, principal)).clips;
}

const STARTED = new Set<ClipRow["status"]>(["queued", "processing", "done"]);

function notStartable(row: ClipRow): Error {
  const why: Partial<Record<ClipRow["status"], string>> = {
    cancelled: "The clip was cancelled and refunded; create a new clip.",
    expired: "The clip expired; create a new clip.",
    failed: "The clip failed and was refunded; create a new clip.",
    refused: "The clip was refused by the content rule and refunded; create a new clip.",
  };
  return wrongState(why[row.status] ?? `The clip is ${row.status} and cannot be started.`);
}

/** awaiting_upload → queued once the image is in storage; a started clip is returned as is. */
export async function startClip(deps: ClipDeps, principal: Principal, id: string) {
  const row = await findVisibleClip(deps.db, principal, id);
  if (STARTED.has(row.status)) return clipView(row, deps);
  if (row.status !== "awaiting_upload") throw notStartable(row);
  await checkUploadedImage(deps, row);
  const moved = await moveClip(deps.db, id, "start", deps.clock(), { queued_at: deps.clock() });
  if (!moved) {
    const now = await findVisibleClip(deps.db, principal, id);
    if (STARTED.has(now.status)) return clipView(now, deps);
    throw notStartable(now);
  }
  await deps.notifyJobs();
  deps.log.info("clip started", { clip_id: id });
  return clipView(moved, deps);
}

async function checkUploadedImage(deps: ClipDeps, row: ClipRow) {
  const info = await deps.storage.head(row.image_key);
  if (!info) {
    throw new ApiError(
      "not_uploaded",
      "The image has not been uploaded yet: PUT it to upload_url with upload_headers, then try again.",
    );
  }
  if (!CLIP_IMAGE_TYPES.some((type) => type === info.contentType)) {
    throw new ApiError(
      "upload_mismatch",
      `The uploaded image has type ${info.contentType ?? "unknown"}; upload image/jpeg, image/png or image/webp.`,
    );
  }
  const declared = row.image_bytes === null ? null : Number(row.image_bytes);
  const wrongSize = declared !== null && info.sizeBytes !== declared;
  if (info.sizeBytes < 1 || info.sizeBytes > CLIP_IMAGE_MAX_BYTES || wrongSize) {
    // Only a store that cannot cap a presigned PUT (S3) gets here: the file must not stay.
    await deps.storage.delete(row.image_key).catch(() => {});
    throw new ApiError(
      "upload_mismatch",
      wrongSize
        ? `The uploaded image is ${info.sizeBytes} bytes but image_bytes was ${declared}; upload it again with the upload_url.`
        : `The uploaded image is ${info.sizeBytes} bytes; it must be 1 to ${CLIP_IMAGE_MAX_BYTES} bytes. Upload a smaller one with the upload_url.`,
    );
  }
}

/** Cancels a clip whose image never arrived and refunds it; cancelling twice is a no-op. */
export async function cancelClip(deps: ClipDeps, principal: Principal, id: string) {
  const row = await findVisibleClip(deps.db, principal, id);
  if (row.status === "cancelled") return clipView(row, deps);
  if (row.status !== "awaiting_upload") {
    throw wrongState(
      `The clip is ${row.status}; only a clip whose image never arrived (awaiting_upload) can be cancelled.`,
    );
  }
  if (await deps.storage.head(row.image_key)) {
    throw new ApiError(
      "already_uploaded",
      "The image has already arrived, so the clip can no longer be cancelled.",
    );
  }
  const moved = await moveClip(
    deps.db,
    id,
    "cancel",
    deps.clock(),
    {
      error: "Cancelled before the image arrived; the price was refunded.",
      finished_at: deps.clock(),
    },
    { events: deps.events },
  );
  if (!moved) {
    const now = await findVisibleClip(deps.db, principal, id);
    if (now.status === "cancelled") return clipView(now, deps);
    throw wrongState(`The clip is ${now.status} and can no longer be cancelled.`);
  }
  deps.log.info("clip cancelled", { clip_id: id });
  return clipView(moved, deps);
}

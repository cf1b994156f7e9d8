/**
 * The clip JobQueue: claim (FOR UPDATE SKIP LOCKED, queued → processing under a lease),
 * heartbeat, complete, fail by kind, and recovery of lapsed leases. The clip image is deleted
 * as soon as the clip is made or has failed for good (SPEC retention rule).
 */
import {
  CLIP_DOWNLOAD_URL_SEC,
  CLIP_IMAGE_MAX_BYTES,
  CLIP_OUTPUT_MAX_BYTES,
} from "../../domain/clips/rules.js";
import { OUTPUT_TOKEN_HEADER, signOutputToken } from "../../http/routes/worker/output-token.js";
import { clipOutputKey } from "../../storage/keys.js";
import type { JobQueue, WorkFailure, WorkItem, WorkResult } from "../../workers/types.js";
import type { ClipDeps } from "./deps.js";
import { type MoveOptions, moveClip } from "./moves.js";
import type { ClipRow } from "./view.js";

const LEASE_CLEARED = { lease_owner: null, lease_expires_at: null } as const;
const RECOVER_BATCH = 100;

const later = (deps: ClipDeps, ms: number) => new Date(deps.clock().getTime() + ms);

async function workItem(deps: ClipDeps, row: ClipRow): Promise<WorkItem> {
  const lifetimeSec = CLIP_DOWNLOAD_URL_SEC;
  // The same output path as restores: a signed ticket request, then a PUT straight to storage.
  const token = signOutputToken(deps.signingSecret, {
    key: clipOutputKey(row.id),
    jobId: row.id,
    maxBytes: CLIP_OUTPUT_MAX_BYTES,
    expSec: Math.floor(deps.clock().getTime() / 1000) + lifetimeSec,
  });
  return {
    kind: "clip",
    jobId: row.id,
    attempt: row.attempts,
    leaseExpiresAt: new Date(row.lease_expires_at ?? deps.clock()).toISOString(),
    inputUrl: await deps.storage.presignDownload(row.image_key, { expiresInSec: lifetimeSec }),
    outputUrl: `${deps.publicUrl}/worker/output-ticket`,
    outputHeaders: { [OUTPUT_TOKEN_HEADER]: token },
    params: {
      prompt: row.prompt,
      size: row.size,
      seconds: row.seconds,
      loop: row.loop,
      seed: Number(row.seed),
      contentType: row.content_type,
      maxImageBytes: CLIP_IMAGE_MAX_BYTES,
    },
  };
}

async function deleteImage(deps: ClipDeps, row: ClipRow) {
  await deps.storage.delete(row.image_key).catch((err) => {
    deps.log.warn("could not delete clip image", { clip_id: row.id, err });
  });
}

/** processing → failed or refused, refunded in the same transaction; the image goes. */
async function endClip(deps: ClipDeps, id: string, failure: WorkFailure, by: MoveOptions) {
  const refused = failure.kind === "refused";
  const now = deps.clock();
  const moved = await moveClip(
    deps.db,
    id,
    refused ? "refuse" : "fail",
    now,
    {
      ...LEASE_CLEARED,
      error: failure.message,
      refusal_code: refused ? (failure.code ?? "sexual") : null,
      finished_at: now,
    },
    by,
  );
  if (!moved) return;
  await deleteImage(deps, moved);
  deps.log.info("clip ended", { clip_id: id, status: moved.status, error: failure.message });
}

async function requeue(deps: ClipDeps, id: string, by: MoveOptions) {
  const now = deps.clock();
  const set = { ...LEASE_CLEARED, error: null, progress: null, queued_at: now };
  return moveClip(deps.db, id, "requeue", now, set, by);
}

export async function claimClip(deps: ClipDeps, workerId: string, leaseMs: number) {
  const row = await deps.db
    .updateTable("clips")
    .set((eb) => ({
      status: "processing",
      attempts: eb("attempts", "+", 1),
      lease_owner: workerId,
      lease_expires_at: later(deps, leaseMs),
      progress: 0,
      updated_at: deps.clock(),
    }))
    .where("status", "=", "queued")
    .where("id", "=", (eb) =>
      eb
        .selectFrom("clips")
        .select("id")
        .where("status", "=", "queued")
        .orderBy("queued_at")
        .orderBy("id")
        .limit(1)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .executeTakeFirst();
  return row ? workItem(deps, row) : null;
}

export async function heartbeatClip(
  deps: ClipDeps,
  id: string,
  workerId: string,
  leaseMs: number,
  progress: number | null,
) {
  const result = await deps.db
    .updateTable("clips")
    .set({
      lease_expires_at: later(deps, leaseMs),
      ...(progress === null ? {} : { progress }),
      updated_at: deps.clock(),
    })
    .where("id", "=", id)
    .where("status", "=", "processing")
    .where("lease_owner", "=", workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** processing → done once the MP4 is in storage; the image is deleted at once. */
export async function completeClip(
  deps: ClipDeps,
  id: string,
  workerId: string,
  result: WorkResult,
) {
  const outputKey = clipOutputKey(id);
  const stored = await deps.storage.head(outputKey);
  if (!stored) {
    const message = "The finished clip did not reach storage; the clip will be retried.";
    return failClip(deps, id, workerId, { kind: "retry", message });
  }
  const now = deps.clock();
  const moved = await moveClip(
    deps.db,
    id,
    "complete",
    now,
    {
      ...LEASE_CLEARED,
      output_key: outputKey,
      output_bytes: stored.sizeBytes || result.outputBytes,
      progress: 1,
      error: null,
      finished_at: now,
      expires_at: new Date(now.getTime() + deps.config.retentionHours * 3600_000),
    },
    { leaseOwner: workerId },
  );
  if (moved) await deleteImage(deps, moved);
}

/** retry → queued again while attempts remain; otherwise (and for final/refused) ended and refunded. */
export async function failClip(deps: ClipDeps, id: string, workerId: string, failure: WorkFailure) {
  const row = await deps.db.selectFrom("clips").selectAll().where("id", "=", id).executeTakeFirst();
  if (row?.status !== "processing" || row.lease_owner !== workerId) return;
  if (failure.kind === "retry" && row.attempts < row.max_attempts) {
    await requeue(deps, id, { leaseOwner: workerId });
    await deps.notifyJobs();
    return;
  }
  await endClip(deps, id, failure, { leaseOwner: workerId });
}

/** Clips whose worker stopped heartbeating: requeued, or failed and refunded on the last attempt. */
export async function recoverClipLeases(deps: ClipDeps) {
  const now = deps.clock();
  const lapsed = await deps.db
    .selectFrom("clips")
    .select(["id", "attempts", "max_attempts"])
    .where("status", "=", "processing")
    .where("lease_expires_at", "<", now)
    .limit(RECOVER_BATCH)
    .execute();
  const by = { leaseLapsedBefore: now };
  for (const row of lapsed) {
    if (row.attempts < row.max_attempts) await requeue(deps, row.id, by);
    else {
      const message = "The clip engine stopped responding on every attempt; the clip was refunded.";
      await endClip(deps, row.id, { kind: "final", message }, by);
    }
  }
  if (lapsed.length > 0) await deps.notifyJobs();
  return lapsed.length;
}

export function createClipQueue(deps: ClipDeps): JobQueue {
  return {
    kind: "clip",
    claim: (workerId, leaseMs) => claimClip(deps, workerId, leaseMs),
    heartbeat: (id, workerId, leaseMs, progress) =>
      heartbeatClip(deps, id, workerId, leaseMs, progress),
    complete: (id, workerId, result) => completeClip(deps, id, workerId, result),
    fail: (id, workerId, failure) => failClip(deps, id, workerId, failure),
    recoverLapsedLeases: () => recoverClipLeases(deps),
  };
}

/**
 * The clip JobQueue: claim (FOR UPDATE SKIP LOCKED, queued → processing under a lease),
 * heartbeat, complete, fail by kind, and recovery of lapsed leases. The clip image is deleted
 * as soon as the clip is made or has failed for good (SPEC retention rule).
 */
import { CLIP_DOWNLOAD_URL_SEC, CLIP_IMAGE_MAX_BYTES } from "../../domain/clips/rules.js";
import { clipOutputKey } from "../../storage/keys.js";
import type { JobQueue, WorkFailure, WorkItem, WorkResult } from "../../workers/types.js";
import type { ClipDeps } from "./deps.js";
import { moveClip } from "./moves.js";
import { OUTPUT_ROUTE_PREFIX, outputToken } from "./output-token.js";
import type { ClipRow } from "./view.js";

const LEASE_CLEARED = { lease_owner: null, lease_expires_at: null } as const;

export function createClipQueue(deps: ClipDeps): JobQueue {
  const later = (ms: number) => new Date(deps.clock().getTime() + ms);

  async function workItem(row: ClipRow): Promise<WorkItem> {
    const urlLifetimeSec = CLIP_DOWNLOAD_URL_SEC;
    const token = outputToken(
      {
        clipId: row.id,
        attempt: row.attempts,
        expiresAtSec: Math.floor(deps.clock().getTime() / 1000) + urlLifetimeSec,
      },
      deps.signingSecret,
    );
    return {
      kind: "clip",
      jobId: row.id,
      attempt: row.attempts,
      leaseExpiresAt: new Date(row.lease_expires_at ?? deps.clock()).toISOString(),
      inputUrl: await deps.storage.presignDownload(row.image_key, { expiresInSec: urlLifetimeSec }),
      outputUrl: `${deps.publicUrl}${OUTPUT_ROUTE_PREFIX}${token}`,
      outputHeaders: { "content-type": "video/mp4" },
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

  async function deleteImage(row: ClipRow) {
    await deps.storage.delete(row.image_key).catch((err) => {
      deps.log.warn("could not delete clip image", { clip_id: row.id, err });
    });
  }

  async function finalFail(
    row: ClipRow,
    failure: WorkFailure,
    by: { leaseOwner?: string; leaseLapsedBefore?: Date },
  ) {
    const refused = failure.kind === "refused";
    const moved = await moveClip(
      deps.db,
      row.id,
      refused ? "refuse" : "fail",
      deps.clock(),
      {
        ...LEASE_CLEARED,
        error: failure.message,
        refusal_code: refused ? (failure.code ?? "sexual") : null,
        finished_at: deps.clock(),
      },
      by,
    );
    if (moved) {
      await deleteImage(moved);
      deps.log.info("clip ended", {
        clip_id: row.id,
        status: moved.status,
        error: failure.message,
      });
    }
  }

  return {
    kind: "clip",

    async claim(workerId, leaseMs) {
      const now = deps.clock();
      const row = await deps.db
        .updateTable("clips")
        .set((eb) => ({
          status: "processing",
          attempts: eb("attempts", "+", 1),
          lease_owner: workerId,
          lease_expires_at: later(leaseMs),
          progress: 0,
          updated_at: now,
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
      return row ? workItem(row) : null;
    },

    async heartbeat(jobId, workerId, leaseMs, progress) {
      const result = await deps.db
        .updateTable("clips")
        .set({
          lease_expires_at: later(leaseMs),
          ...(progress === null ? {} : { progress }),
          updated_at: deps.clock(),
        })
        .where("id", "=", jobId)
        .where("status", "=", "processing")
        .where("lease_owner", "=", workerId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async complete(jobId, workerId, result: WorkResult) {
      const outputKey = clipOutputKey(jobId);
      const stored = await deps.storage.head(outputKey);
      if (!stored) {
        await this.fail(jobId, workerId, {
          kind: "retry",
          message: "The finished clip did not reach storage; the clip will be retried.",
        });
        return;
      }
      const now = deps.clock();
      const moved = await moveClip(
        deps.db,
        jobId,
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
      if (moved) await deleteImage(moved);
    },

    async fail(jobId, workerId, failure) {
      const row = await deps.db
        .selectFrom("clips")
        .selectAll()
        .where("id", "=", jobId)
        .executeTakeFirst();
      if (row?.status !== "processing" || row.lease_owner !== workerId) return;
      if (failure.kind === "retry" && row.attempts < row.max_attempts) {
        await moveClip(
          deps.db,
          jobId,
          "requeue",
          deps.clock(),
          { ...LEASE_CLEARED, error: null, progress: null, queued_at: deps.clock() },
          { leaseOwner: workerId },
        );
        await deps.notifyJobs();
        return;
      }
      await finalFail(row, failure, { leaseOwner: workerId });
    },

    async recoverLapsedLeases() {
      const now = deps.clock();
      const lapsed = await deps.db
        .selectFrom("clips")
        .selectAll()
        .where("status", "=", "processing")
        .where("lease_expires_at", "<", now)
        .limit(100)
        .execute();
      for (const row of lapsed) {
        if (row.attempts < row.max_attempts) {
          await moveClip(
            deps.db,
            row.id,
            "requeue",
            now,
            { ...LEASE_CLEARED, progress: null, queued_at: now },
            { leaseLapsedBefore: now },
          );
        } else {
          const message =
            "The clip engine stopped responding on every attempt; the clip was refunded.";
          await finalFail(row, { kind: "final", message }, { leaseLapsedBefore: now });
        }
      }
      if (lapsed.length > 0) await deps.notifyJobs();
      return lapsed.length;
    },
  };
}

/** The Clip resource as callers see it, and the visibility rule shared by every read. */

import { at } from "../../../domain/checked-index.js";
import { notFound } from "../../../domain/errors.js";
import type { JobKindRegistry } from "../../../jobs/queue-estimate/kinds.js";
import { estimateQueue, type QueueEstimate } from "../../../jobs/queue-estimate/read.js";
import type { Principal } from "../../../services/auth.js";
import type { Db } from "../../../services/ledger.js";
import { jobWebhookViews } from "../../../services/webhooks/reads.js";
import type { BlobStore } from "../../../storage/blob-store.js";
import type { ClipView } from "../api/schemas.js";
import { CLIP_DOWNLOAD_URL_SEC } from "../rules/rules.js";
import { type ClipRow, clipJobs } from "./definition.js";

export type { ClipRow };

/**
 * What a view needs: storage for the links; the database, clock and the server's job kinds
 * for the queue estimate.
 */
interface ClipViewDeps {
  db: Db;
  clock: () => Date;
  storage: BlobStore;
  jobKinds: Pick<JobKindRegistry, "all">;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/**
 * Views of several clips; their queue estimates (the one estimator, knowing every kind's jobs
 * on the workers) cost at most two queries in all.
 */
export async function clipViews(rows: readonly ClipRow[], deps: ClipViewDeps) {
  const queue = await estimateQueue(deps.db, clipJobs, deps.jobKinds.all(), rows, deps.clock());
  const hooks = await jobWebhookViews(
    deps.db,
    rows.map((r) => r.id),
  );
  return Promise.all(
    rows.map(async (row) => ({
      ...(await viewOf(row, deps.storage, queue.get(row.id) ?? null)),
      webhook: hooks.get(row.id) ?? null,
    })),
  );
}

/** The view of one clip, with its queue estimate while it is queued or processing. */
export async function clipView(row: ClipRow, deps: ClipViewDeps): Promise<ClipView> {
  return at(await clipViews([row], deps), 0);
}

async function viewOf(
  row: ClipRow,
  storage: BlobStore,
  queue: QueueEstimate | null,
): Promise<ClipView> {
  const view: ClipView = {
    id: row.id,
    status: row.status,
    size: row.size,
    seconds: row.seconds,
    prompt: row.prompt,
    loop: row.loop,
    amount_cents: Number(row.amount_cents),
    seed: row.seed === null ? null : Number(row.seed),
    image_url: row.image_url,
    progress: row.progress,
    error: row.error,
    refused: row.refusal_code,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    finished_at: iso(row.finished_at),
    expires_at: iso(row.expires_at),
    queue,
  };
  if (row.status === "done" && row.output_key && !row.files_deleted_at) {
    const opts = { expiresInSec: CLIP_DOWNLOAD_URL_SEC, contentType: "video/mp4" };
    // video_url plays in a browser (inline); download_url saves the file (attachment).
    view.video_url = await storage.presignDownload(row.output_key, { ...opts, inline: true });
    view.download_url = await storage.presignDownload(row.output_key, {
      ...opts,
      filename: `${row.id}.mp4`,
    });
  }
  return view;
}

/** The clip if this key may see it: its wallet's clips, and for an agent key only its own. */
export async function findVisibleClip(db: Db, principal: Principal, id: string): Promise<ClipRow> {
  let q = db
    .selectFrom("clips")
    .selectAll()
    .where("id", "=", id)
    .where("wallet_id", "=", principal.walletId);
  if (principal.kind === "agent") q = q.where("agent_key_id", "=", principal.keyId);
  const row = await q.executeTakeFirst();
  if (!row) throw notFound("Clip");
  return row;
}

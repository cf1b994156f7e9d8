/** The Clip resource as callers see it, and the visibility rule shared by every read. */
import { CLIP_DOWNLOAD_URL_SEC } from "../../domain/clips/rules.js";
import { notFound } from "../../domain/errors.js";
import type { BlobStore } from "../../storage/blob-store.js";
import type { Principal } from "../auth.js";
import type { Db } from "../ledger.js";

export type { ClipRow } from "../../jobs/clip.js";

import type { ClipRow } from "../../jobs/clip.js";

export interface ClipView {
  id: string;
  status: ClipRow["status"];
  size: ClipRow["size"];
  seconds: number;
  prompt: string;
  loop: boolean;
  amount_cents: number;
  seed: number | null;
  image_url: string | null;
  progress: number | null;
  error: string | null;
  refused: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  expires_at: string | null;
  video_url?: string;
  download_url?: string;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export async function clipView(row: ClipRow, storage: BlobStore): Promise<ClipView> {
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

/**
 * GET /cloud/jobs/{id}/pictures: a done restore's before/after pictures as expiring links (like
 * download_url), with the full-size frames' pixel size read from the after frame's header —
 * what a comparison shows them at, 1:1.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { implement } from "../../../api/operation.js";
import { wrongState } from "../../../domain/errors.js";
import { jpegSize } from "../../../domain/jpeg-size.js";
import type { Principal } from "../../../domain/principal.js";
import { getRestorePictures } from "../api/pictures.js";
import { RESTORE_DOWNLOAD_URL_SEC } from "../rules/limits.js";
import { ownedJob } from "./commands.js";
import { restoreFrameKey, restoreStillKey } from "./definition.js";
import type { RestoreDeps } from "./deps.js";

/** The bytes stored at `key` (a picture: at most a few megabytes). */
async function readStored(p: RestoreDeps, key: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), "kinora-picture-"));
  try {
    const file = path.join(dir, "picture.jpg");
    await p.storage.downloadToFile(key, file);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The pictures of restore `id`, to its owner; wrong_state unless it is done with its files. */
export async function restorePictures(p: RestoreDeps, principal: Principal, id: string) {
  const row = await ownedJob(p, principal, id);
  if (row.status !== "done" || row.files_deleted_at) {
    throw wrongState(
      row.status === "done" || row.status === "expired"
        ? "This restore's files were deleted after their retention, its pictures with them."
        : `This restore is ${row.status}: its pictures are made once it is done.`,
    );
  }
  const keys = {
    still: restoreStillKey(row.id),
    before: restoreFrameKey(row.id, "before"),
    after: restoreFrameKey(row.id, "after"),
  };
  const [still, before, after] = await Promise.all(
    [keys.still, keys.before, keys.after].map((k) => p.storage.head(k)),
  );
  const expiresAt = new Date(p.clock().getTime() + RESTORE_DOWNLOAD_URL_SEC * 1000);
  const link = async (key: string) => ({
    url: await p.storage.presignDownload(key, {
      expiresInSec: RESTORE_DOWNLOAD_URL_SEC,
      contentType: "image/jpeg",
      inline: true,
    }),
    expires_at: expiresAt.toISOString(),
  });
  const size = before && after ? jpegSize(await readStored(p, keys.after)) : null;
  return {
    job_id: row.id,
    still: still ? await link(keys.still) : null,
    frames: size
      ? { before: await link(keys.before), after: await link(keys.after), ...size }
      : null,
  };
}

/** The pictures operation, served with the restore kind's others. */
export const picturesOperation = implement(
  getRestorePictures,
  async (p: RestoreDeps, a, ctx: { principal: Principal }) =>
    restorePictures(p, ctx.principal, a.job_id),
);

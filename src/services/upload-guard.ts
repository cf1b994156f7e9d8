/**
 * Which uploads the local store accepts right now (storage/local-routes consults it after the
 * signed link checks out). A caller's link is one-shot and lives only while its job waits for
 * that file; a worker's output link only while its job is processing (a retry may overwrite
 * the output of an attempt that failed after storing it).
 */
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { UploadGuard } from "../storage/blob-store.js";
import { parseJobFileKey } from "../storage/keys.js";

const gone = (what: string, status: string) =>
  ({
    ok: false,
    detail: `this upload link is no longer accepted: the ${what} is ${status}`,
  }) as const;

export function createUploadGuard(deps: { db: Kysely<DB> }): UploadGuard {
  return async (key) => {
    const parsed = parseJobFileKey(key);
    if (!parsed) return { ok: false, detail: "this upload link is not for a file kinora expects" };
    if (parsed.area === "restore") {
      const row = await deps.db
        .selectFrom("restore_jobs")
        .select("status")
        .where("id", "=", parsed.id)
        .executeTakeFirst();
      if (!row) return gone("restore job", "gone");
      if (parsed.file === "output") {
        return row.status === "processing" ? { ok: true, once: false } : gone("job", row.status);
      }
      const waiting = row.status === "awaiting_upload" || row.status === "pending_payment";
      return waiting ? { ok: true, once: true } : gone("job", row.status);
    }
    const clip = await deps.db
      .selectFrom("clips")
      .select("status")
      .where("id", "=", parsed.id)
      .executeTakeFirst();
    if (!clip) return gone("clip", "gone");
    if (parsed.file === "output") {
      return clip.status === "processing" ? { ok: true, once: false } : gone("clip", clip.status);
    }
    return clip.status === "awaiting_upload" ? { ok: true, once: true } : gone("clip", clip.status);
  };
}

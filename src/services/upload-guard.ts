/**
 * Which uploads the local store accepts right now (storage/local-routes consults it after the
 * signed link checks out). Each job kind's definition says where its files live and in which
 * statuses each may arrive (`uploads`): a caller's link is one-shot and lives only while its
 * job waits for that file; a worker's output link only while its job is processing (a retry
 * may overwrite the output of an attempt that failed after storing it); the input a worker fetched
 * from a video_url only while that job is processing.
 */
import { sql } from "kysely";
import type { JobDefinition } from "../jobs/definition.js";
import type { UploadGuard } from "../storage/blob-store.js";
import { parseJobFileKey } from "../storage/keys.js";
import type { Db } from "./ledger.js";

const gone = (what: string, status: string) =>
  ({
    ok: false,
    detail: `this upload link is no longer accepted: the ${what} is ${status}`,
  }) as const;

/** The guard over the given kinds' files (the kinds this server runs). */
export function createUploadGuard(deps: {
  db: Db;
  kinds: readonly Pick<JobDefinition, "table" | "noun" | "fileLayout" | "uploads">[];
}): UploadGuard {
  const layouts = deps.kinds.map((k) => k.fileLayout);
  return async (key) => {
    const parsed = parseJobFileKey(key, layouts);
    const def = parsed && deps.kinds.find((k) => k.fileLayout === parsed.layout);
    const rule = parsed && def?.uploads[parsed.file];
    if (!parsed || !def || !rule) {
      return { ok: false, detail: "this upload link is not for a file kinora expects" };
    }
    const source = rule.fetched ? sql.ref(rule.fetched.sourceColumn) : sql`NULL`;
    const { rows } = await sql<{ status: string; source: unknown }>`
      SELECT status, ${source} AS source FROM ${sql.table(def.table)} WHERE id = ${parsed.id}`.execute(
      deps.db,
    );
    const row = rows[0];
    if (row === undefined) return gone(def.noun, "gone");
    const fetchedNow = row.source !== null && rule.fetched?.statuses.includes(row.status);
    return rule.statuses.includes(row.status) || fetchedNow
      ? { ok: true, once: rule.once }
      : gone(def.noun, row.status);
  };
}

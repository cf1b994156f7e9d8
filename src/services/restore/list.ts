/**
 * Listing restore jobs, newest first, a page at a time. The cursor is opaque to callers but is
 * simply the (created_at, id) of the last job of the previous page: keyset pagination stays
 * correct while new jobs arrive, and the wallet index (wallet_id, created_at) serves it.
 */
import type { Principal } from "../auth.js";
import { decodeCursor, encodeCursor } from "../pagination.js";
import type { RestoreDeps } from "./deps.js";
import { jobViews, type RestoreJobView } from "./views.js";

export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;

export interface ListRestoreJobsInput {
  limit?: number;
  cursor?: string;
}

export interface RestoreJobPage {
  jobs: RestoreJobView[];
  next_cursor: string | null;
}

/**
 * The caller's restore jobs, newest first: the wallet key sees every job of its wallet, an
 * agent key only the jobs it created (the same rule as reading one job with a key).
 */
export async function listRestoreJobs(
  p: RestoreDeps,
  principal: Principal,
  input: ListRestoreJobsInput = {},
): Promise<RestoreJobPage> {
  const limit = input.limit ?? LIST_LIMIT.default;
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, "rj");
  let q = p.db
    .selectFrom("restore_jobs")
    .selectAll()
    .where("wallet_id", "=", principal.walletId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    // One extra row tells whether another page exists without a count query.
    .limit(limit + 1);
  if (principal.kind === "agent") q = q.where("agent_key_id", "=", principal.keyId);
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb("created_at", "<", after.createdAt),
        eb.and([eb("created_at", "=", after.createdAt), eb("id", "<", after.id)]),
      ]),
    );
  }
  const rows = await q.execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const more = rows.length > limit && last !== undefined;
  return {
    jobs: await jobViews(p, page),
    next_cursor: more ? encodeCursor({ createdAt: new Date(last.created_at), id: last.id }) : null,
  };
}

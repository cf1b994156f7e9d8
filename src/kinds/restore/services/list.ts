/**
 * Listing restore jobs, newest first, a page at a time. The cursor is opaque to callers but is
 * simply the (created_at, id) of the last job of the previous page: keyset pagination stays
 * correct while new jobs arrive, and the wallet index (wallet_id, created_at) serves it.
 */

import { RESTORE_LIST_LIMIT } from "../../../domain/limits.js";
import type { Principal } from "../../../services/auth.js";
import { ownedJobsPage } from "../../../services/pagination.js";
import type { RestoreJobView } from "../api/schemas.js";
import type { RestoreDeps } from "./deps.js";
import { jobViews } from "./views.js";

interface ListRestoreJobsInput {
  limit?: number;
  cursor?: string;
}

interface RestoreJobPage {
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
  const limit = input.limit ?? RESTORE_LIST_LIMIT.default;
  const { rows, nextCursor } = await ownedJobsPage(p.db, "restore_jobs", principal, {
    limit,
    cursor: input.cursor,
    idPrefix: "rj",
  });
  return {
    jobs: await jobViews(p, rows),
    next_cursor: nextCursor,
  };
}

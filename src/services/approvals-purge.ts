/**
 * The purge of purchase approvals nobody needs any more (housekeeping, core-tasks.ts): decided
 * (approved, declined) and expired ones older than APPROVAL_KEEP_DAYS — the time the owner's
 * history keeps a finished record, as for webhook deliveries. A pending approval still open
 * stays, whatever its age; one left pending past its expiry reads as expired and goes once it is
 * that old. The retention is far longer than anything the gate still reads: a used approval's
 * replay (a day) and a declined one's no (PURCHASE_APPROVAL_MINUTES, at most a week).
 */
import { sql } from "kysely";
import type { CoreDeps } from "./deps.js";

/** How long finished approvals stay in the owner's list (the webhook deliveries' 30 days). */
export const APPROVAL_KEEP_DAYS = 30;

/**
 * Deletes finished approvals past the retention, at most `batch` a pass (so one pass never
 * holds the table for long); returns how many went.
 */
export async function purgeOldApprovals(deps: CoreDeps, batch = 1000): Promise<number> {
  const now = deps.clock();
  const before = new Date(now.getTime() - APPROVAL_KEEP_DAYS * 86_400_000);
  // A decided approval is as old as its decision; an expired one as its expiry.
  const gone = await sql`
    DELETE FROM purchase_approvals WHERE id IN (
      SELECT id FROM purchase_approvals
      WHERE (status IN ('approved', 'declined') AND decided_at < ${before})
         OR (status IN ('expired', 'pending') AND expires_at < ${before})
      LIMIT ${batch})`.execute(deps.db);
  return Number(gone.numAffectedRows ?? 0);
}

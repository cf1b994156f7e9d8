/**
 * An endpoint's health: a success clears its failure streak; a failure starts one (or continues
 * it), and a streak as long as the retry window (3 days of nothing but failures) disables the
 * endpoint, with the reason the owner sees, and fails its waiting deliveries. The streak is as
 * long as the window when a failure comes a window after it began, or when a delivery gave up
 * after retrying for the whole window with no success since its first attempt (an endpoint that
 * gets one event a week is disabled as surely as a busy one).
 */
import { sql } from "kysely";
import type { Db } from "../../jobs/definition.js";

export async function endpointSucceeded(db: Db, endpointId: string): Promise<void> {
  await db
    .updateTable("webhook_endpoints")
    .set({ failing_since: null })
    .where("id", "=", endpointId)
    .where("failing_since", "is not", null)
    .execute();
}

/** Records a failure; true when it disabled the endpoint. */
export async function endpointFailed(
  db: Db,
  endpointId: string,
  now: Date,
  windowMs: number,
  lastProblem: string,
  /** The delivery that just gave up after the whole window, if it did. */
  exhausted?: string,
): Promise<boolean> {
  const since = new Date(now.getTime() - windowMs);
  const hours = Math.round(windowMs / 3600_000);
  const reason = `Every delivery failed for ${hours >= 48 ? `${hours / 24} days` : `${hours} hours`} (the last: ${lastProblem}); fix the receiver, then register it again.`;
  const firstFailure = sql`(SELECT finished_at FROM webhook_attempts
    WHERE delivery_id = ${exhausted ?? null} AND attempt = 1)`;
  const long = sql`(failing_since <= ${since} OR failing_since <= ${firstFailure})`;
  const result = await sql<{ disabled: boolean }>`
    UPDATE webhook_endpoints SET
      failing_since = COALESCE(failing_since, ${now}),
      disabled_at = CASE WHEN ${long} THEN ${now}::timestamptz ELSE NULL END,
      disabled_reason = CASE WHEN ${long} THEN ${reason} ELSE NULL END
    WHERE id = ${endpointId} AND disabled_at IS NULL
    RETURNING disabled_at IS NOT NULL AS disabled`.execute(db);
  const disabled = result.rows[0]?.disabled === true;
  // A disabled endpoint's waiting deliveries end failed: those waiting when it is disabled, and
  // those whose attempt was in flight then, as each attempt ends (its failure lands here with
  // the endpoint already disabled; left pending, nothing would ever claim it again).
  await sql`
    UPDATE webhook_deliveries d SET
      state = 'failed', last_error = 'the endpoint was disabled', lease_owner = NULL
    FROM webhook_endpoints e
    WHERE e.id = ${endpointId} AND e.disabled_at IS NOT NULL
      AND d.endpoint_id = e.id AND d.state = 'pending'
      AND (d.lease_expires_at IS NULL OR d.lease_expires_at < ${now})`.execute(db);
  return disabled;
}

/**
 * Deliveries are claimed like jobs: one `UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED)`
 * takes a due delivery under a lease and counts the attempt, so two nodes never send the same
 * attempt, and a node killed mid-attempt leaves a lease that lapses: the next claim is the next
 * attempt (the lost one is written down as such). A receiver already holding
 * `perEndpoint` live leases (any node) is skipped, so one slow receiver never holds the rest.
 */
import { type Selectable, sql } from "kysely";
import type { WebhookDeliveriesTable } from "../../db/schema.js";
import type { Db } from "../../jobs/definition.js";
import { inTx } from "../../jobs/move.js";

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export interface ClaimOptions {
  node: string;
  leaseMs: number;
  perEndpoint: number;
  /** Receivers this node already has at its limit (skipped without asking the database). */
  busyUrls: readonly string[];
}

/** Claims one due delivery and records its attempt as started; undefined when none is due. */
export async function claimDelivery(
  db: Db,
  now: Date,
  opts: ClaimOptions,
): Promise<DeliveryRow | undefined> {
  return inTx(db, async (tx) => {
    const busy = opts.busyUrls.length > 0 ? opts.busyUrls : [""];
    const claimed = await sql<DeliveryRow>`
      UPDATE webhook_deliveries SET
        attempts = attempts + 1, lease_owner = ${opts.node},
        lease_expires_at = ${new Date(now.getTime() + opts.leaseMs)}, last_attempt_at = ${now}
      WHERE id = (
        SELECT c.id FROM webhook_deliveries c
        LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id
        WHERE c.state = 'pending' AND c.next_attempt_at <= ${now}
          AND (c.lease_expires_at IS NULL OR c.lease_expires_at < ${now})
          AND (c.endpoint_id IS NULL OR (e.disabled_at IS NULL AND e.deleted_at IS NULL))
          AND c.url <> ALL (${sql.val(busy)}::text[])
          AND (SELECT count(*) FROM webhook_deliveries f
               WHERE f.url = c.url AND f.state = 'pending' AND f.lease_expires_at > ${now}
              ) < ${opts.perEndpoint}
        ORDER BY c.next_attempt_at, c.id LIMIT 1
        FOR UPDATE OF c SKIP LOCKED
      ) AND state = 'pending'
      RETURNING *`.execute(tx);
    const row = claimed.rows[0];
    if (!row) return undefined;
    // An earlier attempt still open was a node that stopped mid-attempt.
    await tx
      .updateTable("webhook_attempts")
      .set({ finished_at: now, error: "the delivering node stopped mid-attempt (lease lapsed)" })
      .where("delivery_id", "=", row.id)
      .where("finished_at", "is", null)
      .execute();
    await tx
      .insertInto("webhook_attempts")
      .values({ delivery_id: row.id, attempt: row.attempts, node: opts.node, started_at: now })
      .execute();
    return row;
  });
}

/** What an attempt's end writes: delivered, another try at `retryAt`, or failed for good. */
export type AttemptOutcome =
  | { state: "delivered"; statusCode: number }
  | { state: "pending"; retryAt: Date; statusCode: number | null; error: string }
  | { state: "failed"; statusCode: number | null; error: string; exhausted: boolean };

/**
 * Writes the outcome of attempt `row.attempts`, only while this node still holds the lease
 * (a node whose lease lapsed changes nothing: the attempt was given to another) and the
 * delivery still waits (one cancelled meanwhile — its endpoint deleted or disabled — stays so:
 * written back as pending, nothing would ever claim it). Returns whether it was written; the
 * attempt's own record ends either way, unless a node that took over closed it already.
 */
export async function finishAttempt(
  db: Db,
  row: DeliveryRow,
  node: string,
  outcome: AttemptOutcome,
  now: Date,
): Promise<boolean> {
  const statusCode = outcome.statusCode;
  const error = outcome.state === "delivered" ? null : outcome.error;
  return inTx(db, async (tx) => {
    const updated = await tx
      .updateTable("webhook_deliveries")
      .set({
        state: outcome.state,
        lease_owner: null,
        lease_expires_at: null,
        last_status_code: statusCode,
        last_error: error,
        ...(outcome.state === "pending" ? { next_attempt_at: outcome.retryAt } : {}),
        ...(outcome.state === "delivered" ? { delivered_at: now } : {}),
      })
      .where("id", "=", row.id)
      .where("lease_owner", "=", node)
      .where("attempts", "=", row.attempts)
      .where("state", "=", "pending")
      .executeTakeFirst();
    await tx
      .updateTable("webhook_attempts")
      .set({ finished_at: now, status_code: statusCode, error })
      .where("delivery_id", "=", row.id)
      .where("attempt", "=", row.attempts)
      .where("node", "=", node)
      .where("finished_at", "is", null)
      .execute();
    return Number(updated.numUpdatedRows) > 0;
  });
}

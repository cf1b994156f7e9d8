/**
 * The owner's answer to a purchase an asking key waits for, and waiting for it. Only the wallet
 * key's caller decides (the approve operation is wallet-key only; the page runs it as the
 * signed-in owner): an agent key has no way to answer for its owner. An approval gives the
 * agent a fresh window (the setting's length) to make the purchase; a decision is final.
 */
import { conflict, notFound } from "../domain/errors.js";
import {
  type ApprovalDeps,
  type ApprovalRow,
  approvalEvent,
  readApproval,
  rowOf,
} from "./approvals.js";

/**
 * Approves or declines the wallet's pending approval `id`; its webhook event is written in the
 * same transaction. 404 for an id not of this wallet; 409 once it was decided or expired.
 */
export async function decideApproval(
  deps: ApprovalDeps,
  walletId: string,
  id: string,
  decision: "approve" | "decline",
  ttlMs: number,
): Promise<ApprovalRow> {
  const now = deps.clock();
  const decided = await deps.db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable("purchase_approvals")
      .set({
        status: decision === "approve" ? "approved" : "declined",
        decided_at: now,
        ...(decision === "approve" ? { expires_at: new Date(now.getTime() + ttlMs) } : {}),
      })
      .where("id", "=", id)
      .where("wallet_id", "=", walletId)
      .where("status", "=", "pending")
      .where("expires_at", ">", now)
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    const view = rowOf(row, now);
    const type = decision === "approve" ? "purchase.approved" : "purchase.declined";
    await approvalEvent(deps, tx, type, view, now);
    return view;
  });
  if (decided) return decided;
  const seen = await readApproval(deps, { walletId }, id);
  if (!seen) throw notFound("Approval");
  throw conflict(
    seen.status === "expired"
      ? "This purchase was not answered in time and has expired; the agent must ask again."
      : `This purchase was already ${seen.status}; a decision is final.`,
  );
}

/** How often a waiting read looks again: a cheap indexed read, a few a second at most. */
const WAIT_STEP_MS = 500;

/**
 * The approval `id` as `who` may see it, waiting up to `waitMs` while it is pending (the agent
 * waits for its owner without polling hard). Throws 404 for an id `who` may not see.
 */
export async function waitForDecision(
  deps: ApprovalDeps,
  who: { walletId: string; keyId?: string },
  id: string,
  waitMs: number,
  signal: AbortSignal,
): Promise<ApprovalRow> {
  const until = Date.now() + waitMs;
  for (;;) {
    const row = await readApproval(deps, who, id);
    if (!row) throw notFound("Approval");
    if (row.status !== "pending" || Date.now() >= until || signal.aborted) return row;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, Math.min(WAIT_STEP_MS, Math.max(0, until - Date.now())));
      function done() {
        clearTimeout(t);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    });
  }
}

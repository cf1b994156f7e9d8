/** The purchase approvals' handlers: each maps its input onto one service call. */

import * as c from "../api/contracts/approvals.js";
import { implement, type Operation, type OutputOf } from "../api/operation.js";
import { notFound } from "../domain/errors.js";
import type { Principal } from "../domain/principal.js";
import {
  type ApprovalDeps,
  type ApprovalRow,
  approvalUrl,
  keyOfApproval,
  listApprovals,
} from "../services/approvals.js";
import { decideApproval, waitForDecision } from "../services/approvals-decide.js";

/** What the approval operations need: the services and how long an approval lasts. */
export interface ApprovalOperationDeps extends ApprovalDeps {
  config: { purchaseApprovalTtlMs: number };
}

type ApprovalView = OutputOf<typeof c.getApproval>["approval"];

/** The approval as both the key and the owner read it. */
async function viewOf(deps: ApprovalDeps, row: ApprovalRow): Promise<ApprovalView> {
  const key = await keyOfApproval(deps, row.keyId);
  return {
    id: row.id,
    status: row.status,
    used: row.usedAt !== null,
    question: row.question,
    price_cents: row.priceCents,
    operation: row.operationId,
    agent_key: { id: key.id, label: key.label, kind: key.kind },
    approval_url: approvalUrl(deps.publicUrl, row.id),
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    decided_at: row.decidedAt?.toISOString() ?? null,
  };
}

/** Whose approvals a caller may read: an agent key its own, the wallet key the wallet's. */
const readerOf = (p: Principal) =>
  p.kind === "agent" ? { walletId: p.walletId, keyId: p.keyId } : { walletId: p.walletId };

const read = implement(c.getApproval, async (deps: ApprovalOperationDeps, a, ctx) => {
  const waitMs = (a.wait_seconds ?? 0) * 1000;
  const row = await waitForDecision(
    deps,
    readerOf(ctx.principal),
    a.approval_id,
    waitMs,
    ctx.signal,
  );
  return { approval: await viewOf(deps, row) };
});

/** The owner's list: the latest this many. */
const LIST_LIMIT = 100;

const list = implement(c.listApprovals, async (deps: ApprovalOperationDeps, _a, ctx) => {
  const rows = await listApprovals(deps, ctx.principal.walletId, LIST_LIMIT);
  return { approvals: await Promise.all(rows.map((r) => viewOf(deps, r))) };
});

const decide = implement(c.decideApproval, async (deps: ApprovalOperationDeps, a, ctx) => {
  if (!a.approval_id.startsWith("apr_")) throw notFound("Approval");
  const row = await decideApproval(
    deps,
    ctx.principal.walletId,
    a.approval_id,
    a.decision,
    deps.config.purchaseApprovalTtlMs,
  );
  return { approval: await viewOf(deps, row) };
});

/** The approval operations, bound to their services. */
export function approvalOperations(deps: ApprovalOperationDeps): Operation[] {
  return [read, list, decide].map((bind) => bind(deps));
}

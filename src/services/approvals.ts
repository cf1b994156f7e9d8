/**
 * Purchases waiting for the owner's yes (migration 019): an agent key or connected app that must
 * ask its owner (`ask_before_spending`) asks here, with the exact operation, a digest of its
 * canonical arguments and the price; only the wallet's owner decides (./approvals-decide.ts);
 * the key's retry with the same arguments finds the approval and uses it once. The rules of the
 * runner's gate live in operations/spend-approval.ts; this module only reads and writes rows.
 */
import { createHash } from "node:crypto";
import type { Timestamp } from "../db/schema-columns.js";
import { isRecord } from "../domain/records.js";
import { enqueueWebhookEvent } from "../jobs/webhook-outbox.js";
import type { CoreDeps } from "./deps.js";

/** A row's status as stored; a pending row past its expiry reads as expired. */
export type ApprovalStatus = "pending" | "approved" | "declined" | "expired";

/** purchase_approvals (019-purchase-approvals.sql). */
export interface PurchaseApprovalsTable {
  id: string;
  wallet_id: string;
  agent_key_id: string;
  operation_id: string;
  args_digest: string;
  price_cents: number;
  question: string;
  status: ApprovalStatus;
  created_at: Timestamp;
  expires_at: Timestamp;
  decided_at: Timestamp | null;
  used_at: Timestamp | null;
}

declare module "../db/schema.js" {
  interface DB {
    purchase_approvals: PurchaseApprovalsTable;
  }
}

/** What the services need besides the core: where the approval page is. */
export interface ApprovalDeps extends CoreDeps {
  publicUrl: string;
}

/** One purchase, as the key asked for it. */
export interface Purchase {
  walletId: string;
  keyId: string;
  operationId: string;
  /** purchaseDigest of the call's input. */
  digest: string;
  priceCents: number;
  question: string;
}

/** A stored approval, as every reader sees it. */
export interface ApprovalRow {
  id: string;
  walletId: string;
  keyId: string;
  operationId: string;
  priceCents: number;
  question: string;
  status: ApprovalStatus;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  usedAt: Date | null;
}

/** Sorted keys at every level, so the same arguments in any order digest the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isRecord(value)) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/**
 * The digest an approval is bound to: the call's input with its keys sorted, without
 * `max_price_cents` (a cap the agent sets, not part of what is bought; the price is bound on
 * its own) and `idempotency_key`.
 */
export function purchaseDigest(input: Record<string, unknown>): string {
  const { max_price_cents: _cap, idempotency_key: _key, ...bought } = input;
  return createHash("sha256")
    .update(JSON.stringify(canonical(bought)))
    .digest("base64url");
}

/** The page where the owner decides. */
export const approvalUrl = (publicUrl: string, id: string) => `${publicUrl}/approve/${id}`;

type Row = {
  id: string;
  wallet_id: string;
  agent_key_id: string;
  operation_id: string;
  price_cents: number;
  question: string;
  status: ApprovalStatus;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  used_at: Date | null;
};

/** A row as read, its status as of `now` (a pending or unused approval past expiry: expired). */
export function rowOf(r: Row, now: Date): ApprovalRow {
  const lapsed = r.expires_at.getTime() <= now.getTime();
  const expired =
    r.status === "expired" ||
    (lapsed && (r.status === "pending" || (r.status === "approved" && r.used_at === null)));
  return {
    id: r.id,
    walletId: r.wallet_id,
    keyId: r.agent_key_id,
    operationId: r.operation_id,
    priceCents: Number(r.price_cents),
    question: r.question,
    status: expired ? "expired" : r.status,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    decidedAt: r.decided_at,
    usedAt: r.used_at,
  };
}

const COLUMNS = [
  "id",
  "wallet_id",
  "agent_key_id",
  "operation_id",
  "price_cents",
  "question",
  "status",
  "created_at",
  "expires_at",
  "decided_at",
  "used_at",
] as const;

/** How long a used approval's purchase is answered again (the idempotency record's life). */
const REPLAY_MS = 24 * 3600_000;

/**
 * The approval the key's purchase may go ahead on: approved for exactly this operation,
 * arguments and price, and either not used yet (and not expired) or used within a day (its
 * answer is replayed). Undefined: there is none.
 */
export async function approvedFor(
  deps: CoreDeps,
  p: Purchase,
): Promise<{ id: string; used: boolean } | undefined> {
  const now = deps.clock();
  const row = await deps.db
    .selectFrom("purchase_approvals")
    .select(["id", "used_at"])
    .where("agent_key_id", "=", p.keyId)
    .where("operation_id", "=", p.operationId)
    .where("args_digest", "=", p.digest)
    .where("price_cents", "=", p.priceCents)
    .where("status", "=", "approved")
    .where((eb) =>
      eb.or([
        eb.and([eb("used_at", "is", null), eb("expires_at", ">", now)]),
        eb("used_at", ">", new Date(now.getTime() - REPLAY_MS)),
      ]),
    )
    .orderBy("decided_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? { id: row.id, used: row.used_at !== null } : undefined;
}

/**
 * Uses an approval for its purchase: true for the one caller that wins (approved, unused, not
 * expired); every other caller, concurrent or later, gets false.
 */
export async function useApproval(deps: CoreDeps, id: string): Promise<boolean> {
  const now = deps.clock();
  const used = await deps.db
    .updateTable("purchase_approvals")
    .set({ used_at: now })
    .where("id", "=", id)
    .where("status", "=", "approved")
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning("id")
    .executeTakeFirst();
  return used !== undefined;
}

/**
 * Gives an approval back after its purchase failed in a way a retry may cure (nothing was
 * charged: see operations/run.ts RETRYABLE), so the retry can use it.
 */
export async function returnApproval(deps: CoreDeps, id: string): Promise<void> {
  await deps.db
    .updateTable("purchase_approvals")
    .set({ used_at: null })
    .where("id", "=", id)
    .execute();
}

/** What an asking key is told: the approval it waits for (a new or its open one), or a no. */
export type Asked = { kind: "pending"; row: ApprovalRow } | { kind: "declined"; row: ApprovalRow };

/**
 * Asks the owner for `p`: the open question for the same purchase if there is one, the owner's
 * no if they declined it less than `ttlMs` ago (a declined purchase is not asked again at once:
 * the owner is not flooded), else a new pending approval — with its webhook
 * (`purchase.approval_requested`) in the same transaction.
 */
export async function askOwner(deps: ApprovalDeps, p: Purchase, ttlMs: number): Promise<Asked> {
  const now = deps.clock();
  return deps.db.transaction().execute(async (tx) => {
    const same = tx
      .selectFrom("purchase_approvals")
      .select(COLUMNS)
      .where("agent_key_id", "=", p.keyId)
      .where("operation_id", "=", p.operationId)
      .where("args_digest", "=", p.digest)
      .where("price_cents", "=", p.priceCents);
    const declined = await same
      .where("status", "=", "declined")
      .where("decided_at", ">", new Date(now.getTime() - ttlMs))
      .orderBy("decided_at", "desc")
      .limit(1)
      .executeTakeFirst();
    if (declined) return { kind: "declined", row: rowOf(declined, now) };
    // A question nobody answered in time is closed, so the purchase can be asked again.
    await tx
      .updateTable("purchase_approvals")
      .set({ status: "expired" })
      .where("agent_key_id", "=", p.keyId)
      .where("status", "=", "pending")
      .where("expires_at", "<=", now)
      .execute();
    const inserted = await tx
      .insertInto("purchase_approvals")
      .values({
        id: deps.ids("apr"),
        wallet_id: p.walletId,
        agent_key_id: p.keyId,
        operation_id: p.operationId,
        args_digest: p.digest,
        price_cents: p.priceCents,
        question: p.question,
        status: "pending",
        created_at: now,
        expires_at: new Date(now.getTime() + ttlMs),
      })
      .onConflict((oc) =>
        oc
          .columns(["agent_key_id", "operation_id", "args_digest", "price_cents"])
          .where("status", "=", "pending")
          .doNothing(),
      )
      .returning(COLUMNS)
      .executeTakeFirst();
    if (inserted) {
      const row = rowOf(inserted, now);
      await approvalEvent(deps, tx, "purchase.approval_requested", row, now);
      return { kind: "pending", row };
    }
    const open = await same.where("status", "=", "pending").executeTakeFirstOrThrow();
    return { kind: "pending", row: rowOf(open, now) };
  });
}

/** The key's label and kind, for the owner's pages and the webhook. */
export async function keyOfApproval(deps: CoreDeps, keyId: string) {
  const k = await deps.db
    .selectFrom("agent_keys")
    .select(["id", "label", "kind"])
    .where("id", "=", keyId)
    .executeTakeFirst();
  return k ?? { id: keyId, label: "", kind: "agent" as const };
}

/**
 * Writes an approval's webhook event (its data as of now) in the transaction `db` of the change
 * that causes it.
 */
export async function approvalEvent(
  deps: ApprovalDeps,
  db: CoreDeps["db"],
  type: "purchase.approval_requested" | "purchase.approved" | "purchase.declined",
  row: ApprovalRow,
  now: Date,
): Promise<void> {
  const key = await keyOfApproval({ ...deps, db }, row.keyId);
  await enqueueWebhookEvent(
    db,
    {
      walletId: row.walletId,
      type,
      data: {
        wallet_id: row.walletId,
        approval_id: row.id,
        agent_key_id: row.keyId,
        label: key.label,
        operation: row.operationId,
        price_cents: row.priceCents,
        question: row.question,
        status: row.status,
        approval_url: approvalUrl(deps.publicUrl, row.id),
        expires_at: row.expiresAt.toISOString(),
      },
      dedupeKey: `${type}:${row.id}`,
    },
    now,
  );
}

/** Reads one approval as `who` may see it (the asking key's own, or any of the wallet's). */
export async function readApproval(
  deps: CoreDeps,
  who: { walletId: string; keyId?: string },
  id: string,
): Promise<ApprovalRow | undefined> {
  let q = deps.db
    .selectFrom("purchase_approvals")
    .select(COLUMNS)
    .where("id", "=", id)
    .where("wallet_id", "=", who.walletId);
  if (who.keyId !== undefined) q = q.where("agent_key_id", "=", who.keyId);
  const row = await q.executeTakeFirst();
  return row ? rowOf(row, deps.clock()) : undefined;
}

/** The wallet's approvals, newest first (at most `limit`). */
export async function listApprovals(
  deps: CoreDeps,
  walletId: string,
  limit: number,
): Promise<ApprovalRow[]> {
  const rows = await deps.db
    .selectFrom("purchase_approvals")
    .select(COLUMNS)
    .where("wallet_id", "=", walletId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  const now = deps.clock();
  return rows.map((r) => rowOf(r, now));
}

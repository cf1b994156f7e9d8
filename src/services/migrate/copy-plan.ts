/**
 * Which tables are copied, in which order. The order is written here, reviewed with the
 * migrations, and checked at run time against the source's catalog: a table with no rule, a
 * rule whose table is missing, a parent listed after its child or a table without a primary
 * key (the copy pages by it) stops the migration before anything is written.
 */
import type { DB } from "../../db/schema.js";
import type { ForeignKey, TableShape } from "./catalog.js";

type TableName = keyof DB;

/** Parents before children, so every foreign key finds its row already copied. */
export const COPY_ORDER: readonly TableName[] = [
  "wallets",
  "agent_keys",
  "ledger_entries",
  "restore_jobs",
  "restore_card_refunds",
  // A segmented restore's work units (017): after the restore they belong to.
  "restore_segments",
  // Free previews (018): after the wallets and keys they name.
  "preview_jobs",
  "clips",
  "checkouts",
  "payment_events",
  "test_checkout_refunds",
  "usdc_payments",
  "usdc_refunds",
  "oauth_clients",
  "oauth_codes",
  "oauth_tokens",
  "web_sessions",
  // Purchases asking keys waited for (019): after the wallets and keys they name.
  "purchase_approvals",
  // Webhooks: secrets and endpoints before the events and deliveries that name them.
  "webhook_secrets",
  "webhook_endpoints",
  "job_webhooks",
  "webhook_events",
  "webhook_deliveries",
  "webhook_attempts",
  // Uploads in parts: the upload before its parts.
  "multipart_uploads",
  "multipart_upload_parts",
  // Replays of the last 24 hours: a client retrying across the cutover gets its first answer.
  "idempotency_keys",
  // Empty on PGlite (it counts in memory); copied anyway so the rule is "every table".
  "rate_limits",
];

/** Tables deliberately not copied, and why. */
export const NOT_COPIED: Readonly<Record<string, string>> = {
  schema_migrations:
    "the target's own migrations fill it; the source must list the same migrations (checked first)",
};

/** The copy cannot be planned: the schema and the rules above disagree. */
export class CopyPlanError extends Error {
  override readonly name = "CopyPlanError";
}

/** The source's tables in copy order, or CopyPlanError naming every disagreement. */
export function buildCopyPlan(
  tables: ReadonlyMap<string, TableShape>,
  foreignKeys: readonly ForeignKey[],
  order: readonly string[] = COPY_ORDER,
): TableShape[] {
  const problems: string[] = [];
  for (const name of tables.keys()) {
    if (!order.includes(name) && !(name in NOT_COPIED)) {
      problems.push(`table ${name} has no copy rule (add it to COPY_ORDER or NOT_COPIED)`);
    }
  }
  const plan: TableShape[] = [];
  for (const name of order) {
    const table = tables.get(name);
    if (!table) {
      problems.push(`table ${name} is in COPY_ORDER but not in the database`);
      continue;
    }
    if (table.key.length === 0) problems.push(`table ${name} has no primary key to page by`);
    plan.push(table);
  }
  for (const fk of foreignKeys) {
    if (fk.child === fk.parent || fk.child in NOT_COPIED) continue;
    if (order.indexOf(fk.parent) > order.indexOf(fk.child)) {
      problems.push(`${fk.child} references ${fk.parent}, which COPY_ORDER lists after it`);
    }
  }
  if (problems.length > 0) {
    throw new CopyPlanError(`cannot plan the copy:\n  ${problems.join("\n  ")}`);
  }
  return plan;
}

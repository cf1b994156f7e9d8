/**
 * Which tables are copied, in which order: the tables every kind builds on, then each job
 * kind's tables as the registry declares them (its job table and its `otherTables`, kinds in
 * registry order), then the tables that name jobs of any kind. The order is checked at run time
 * against the source's catalog: a table with no rule, a rule whose table is missing, a parent
 * listed after its child or a table without a primary key (the copy pages by it) stops the
 * migration before anything is written.
 */
import type { DB } from "../../db/schema.js";
import type { ForeignKey, TableShape } from "./catalog.js";

type TableName = keyof DB;

/** Before the kinds' tables: what every job names (its wallet and key, their ledger). */
const BEFORE_KINDS: readonly TableName[] = ["wallets", "agent_keys", "ledger_entries"];

/** After the kinds' tables, parents before children. */
const AFTER_KINDS: readonly TableName[] = [
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

/**
 * The copy order, parents before children so every foreign key finds its row already copied:
 * `kindTables` are every job kind's tables in registry order (composition reads them from the
 * registry: a kind whose tables reference another kind's is listed after it).
 */
export function copyOrder(kindTables: readonly string[]): string[] {
  return [...BEFORE_KINDS, ...kindTables, ...AFTER_KINDS];
}

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
  order: readonly string[],
): TableShape[] {
  const problems: string[] = [];
  for (const name of tables.keys()) {
    if (!order.includes(name) && !(name in NOT_COPIED)) {
      problems.push(
        `table ${name} has no copy rule (a job kind's: declare it in the kind's otherTables; any other: add it to the copy order or NOT_COPIED)`,
      );
    }
  }
  const plan: TableShape[] = [];
  for (const name of order) {
    const table = tables.get(name);
    if (!table) {
      problems.push(`table ${name} is in the copy order but not in the database`);
      continue;
    }
    if (table.key.length === 0) problems.push(`table ${name} has no primary key to page by`);
    plan.push(table);
  }
  for (const fk of foreignKeys) {
    if (fk.child === fk.parent || fk.child in NOT_COPIED) continue;
    if (order.indexOf(fk.parent) > order.indexOf(fk.child)) {
      problems.push(`${fk.child} references ${fk.parent}, which the copy order lists after it`);
    }
  }
  if (problems.length > 0) {
    throw new CopyPlanError(`cannot plan the copy:\n  ${problems.join("\n  ")}`);
  }
  return plan;
}

/** The webhook figures /metrics reads at scrape time (one query, all nodes). */
import { sql } from "kysely";
import type { Db } from "../../jobs/definition.js";
import type { WebhookSnapshot } from "../../metrics/webhook-metrics.js";

export async function readWebhookStats(db: Db): Promise<WebhookSnapshot> {
  const result = await sql<{ queued: number | string; disabled: number | string }>`
    SELECT
      (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending') AS queued,
      (SELECT count(*) FROM webhook_endpoints
       WHERE disabled_at IS NOT NULL AND deleted_at IS NULL) AS disabled`.execute(db);
  const row = result.rows[0];
  return { queued: Number(row?.queued ?? 0), disabledEndpoints: Number(row?.disabled ?? 0) };
}

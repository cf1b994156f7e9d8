/**
 * Webhook delivery metrics (docs/webhooks.md): how many deliveries wait (cluster-wide, read at
 * scrape time), how attempts on this node ended, and how many endpoints are disabled.
 */
import type { KinoraObserver } from "../domain/events.js";
import type { MetricsRegistry } from "./registry.js";

/** What the scrape reads from the database. */
export interface WebhookSnapshot {
  /** Deliveries waiting for their next attempt (or in one now). */
  queued: number;
  /** Endpoints disabled after failing for the whole retry window (not deleted). */
  disabledEndpoints: number;
}

/** Defines the webhook metrics on `registry` and returns the observer that counts attempts. */
export function registerWebhookMetrics(
  registry: MetricsRegistry,
  read: () => Promise<WebhookSnapshot>,
): KinoraObserver {
  let snapshot: WebhookSnapshot | undefined;
  registry.onScrape(async () => {
    snapshot = await read().catch(() => undefined);
  });
  registry.gauge({
    name: "kinora_webhook_deliveries_queued",
    help: "Webhook deliveries waiting for an attempt, all nodes (read at scrape time).",
    collect: (g) => {
      if (snapshot) g.set({}, snapshot.queued);
    },
  });
  registry.gauge({
    name: "kinora_webhook_endpoints_disabled",
    help: "Webhook endpoints disabled after 3 days of failed deliveries (read at scrape time).",
    collect: (g) => {
      if (snapshot) g.set({}, snapshot.disabledEndpoints);
    },
  });
  const attempts = registry.counter({
    name: "kinora_webhook_deliveries_total",
    help: "Webhook attempts on this node by outcome: delivered, retrying (another try is due), failed (for good).",
    labelNames: ["outcome"],
  });
  const disabled = registry.counter({
    name: "kinora_webhook_endpoints_disabled_total",
    help: "Webhook endpoints this node disabled after 3 days of failures.",
  });
  return {
    webhookDelivery(e) {
      if (e.outcome === "disabled") disabled.inc();
      else attempts.inc({ outcome: e.outcome });
    },
  };
}

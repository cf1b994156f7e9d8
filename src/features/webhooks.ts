/**
 * Webhooks as a Feature: the management operations (endpoints, test events, the wallet's
 * secret), and on every `kinora serve` node the delivery loop — deliveries are claimed like
 * jobs, so any number of nodes share the outbox — plus the purge of old deliveries and, at
 * start, sealing again the secrets sealed before a SIGNING_SECRET rotation.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { sql } from "kysely";
import { WEBHOOK_RETRY_WINDOW_MS } from "../domain/webhooks.js";
import type { BackgroundTask, FeatureFactory, Platform } from "../feature.js";
import { WEBHOOK_CHANNEL } from "../jobs/webhook-outbox.js";
import type { JobKind } from "../kinds/kind.js";
import { webhookOperations } from "../operations/webhooks.js";
import { webhooksConfig } from "../services/webhooks/config.js";
import type { RetryTiming } from "../services/webhooks/deliver.js";
import { startDispatcher } from "../services/webhooks/dispatcher.js";
import type { EndpointDeps } from "../services/webhooks/endpoints.js";
import type { JobViewKind } from "../services/webhooks/payload.js";
import type { ReceiverPolicy } from "../services/webhooks/receiver-url.js";
import { resealStaleSecrets } from "../services/webhooks/secrets.js";
import { type Purge, startPurges } from "./purges.js";

/** How long finished deliveries (and their events) stay readable. */
const DELIVERY_KEEP_DAYS = 30;

interface WebhooksFeatureOptions {
  /** The job kinds whose jobs payloads show (each kind's REST view). */
  kinds: readonly JobKind[];
  /** Attempt timing (tests shorten it). */
  timing?: Partial<RetryTiming>;
  leaseMs?: number;
  pollMs?: number;
  /** Tests: a resolver and the CA of a local https receiver. */
  lookup?: ReceiverPolicy["lookup"];
  caForTests?: Buffer;
  /** Deliver nothing from this process (management only). */
  noDelivery?: boolean;
}

/**
 * The webhook services' dependencies, built once by the webhooks feature: its operations and
 * its delivery share them.
 */
function webhookDeps(p: Platform, lookup?: ReceiverPolicy["lookup"]): EndpointDeps {
  return {
    db: p.db,
    clock: p.clock,
    ids: p.ids,
    signer: p.signer,
    receivers: {
      allowHttpLoopback: webhooksConfig(p.config.env).allowHttpLoopback,
      ...(lookup ? { lookup } : {}),
    },
  };
}

const DONE_STATES = ["delivered", "failed", "cancelled"] as const;

/** Finished deliveries, their attempts and then their events, past DELIVERY_KEEP_DAYS. */
async function purgeDeliveries(p: Platform): Promise<number> {
  const before = new Date(p.clock().getTime() - DELIVERY_KEEP_DAYS * 86_400_000);
  const old = sql`SELECT id FROM webhook_deliveries
    WHERE created_at < ${before} AND state IN (${sql.join([...DONE_STATES])}) LIMIT 1000`;
  await sql`DELETE FROM webhook_attempts WHERE delivery_id IN (${old})`.execute(p.db);
  const gone = await sql`DELETE FROM webhook_deliveries WHERE id IN (${old})`.execute(p.db);
  await sql`DELETE FROM webhook_events e WHERE e.created_at < ${before}
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)`.execute(p.db);
  return Number(gone.numAffectedRows ?? 0);
}

const PURGES: readonly Purge[] = [{ what: "webhook deliveries", run: purgeDeliveries }];

function viewKinds(kinds: readonly JobKind[], p: Platform): JobViewKind[] {
  return kinds.map((k) => ({
    definition: k.definition,
    ...(k.view ? { view: k.view(p) } : {}),
  }));
}

async function startDelivery(
  p: Platform,
  deps: EndpointDeps,
  opts: WebhooksFeatureOptions,
): Promise<BackgroundTask> {
  const cfg = webhooksConfig(p.config.env);
  const resealed = await resealStaleSecrets(deps);
  if (resealed > 0) p.log.info("webhook secrets sealed with the current key", { resealed });
  const timing: RetryTiming = {
    timeoutMs: cfg.timeoutMs,
    baseMs: 10_000,
    capMs: 6 * 3600_000,
    windowMs: WEBHOOK_RETRY_WINDOW_MS,
    ...opts.timing,
  };
  return startDispatcher(
    {
      ...deps,
      log: p.log,
      kinds: viewKinds(opts.kinds, p),
      policy: deps.receivers,
      timing,
      node: `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`,
      ...(opts.caForTests ? { caForTests: opts.caForTests } : {}),
      report: (e) => p.events.webhookDelivery(e),
    },
    {
      concurrency: cfg.concurrency,
      perEndpoint: cfg.perEndpoint,
      // Longer than an attempt can take, so a live attempt's lease never lapses.
      leaseMs: opts.leaseMs ?? 2 * timing.timeoutMs + 1000,
      pollMs: opts.pollMs ?? 1000,
      listen: (wake) => p.database.listen(WEBHOOK_CHANNEL, wake),
    },
  );
}

/** Webhooks kinora sends: the endpoint operations, delivery on every node and its cleanup. */
export function webhooksFeature(opts: WebhooksFeatureOptions): FeatureFactory {
  return (p) => {
    const deps = webhookDeps(p, opts.lookup);
    return {
      name: "webhooks",
      operations: webhookOperations(deps),
      start: async () => {
        const purges = startPurges(p, PURGES, "webhook purge");
        const delivery = opts.noDelivery ? undefined : await startDelivery(p, deps, opts);
        return {
          async stop() {
            await Promise.all([purges.stop(), delivery?.stop()]);
          },
        };
      },
    };
  };
}

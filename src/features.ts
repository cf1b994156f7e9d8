/** Every feature kinora serves, in mount order: each job kind's first (src/job-kinds.ts). */

import type { FeatureFactory } from "./feature.js";
import { connectedAppsFeature } from "./features/connected-apps.js";
import { consoleFeature } from "./features/console.js";
import { mcpFeature } from "./features/mcp.js";
import { metricsFeature } from "./features/metrics.js";
import { paymentsFeature } from "./features/payments.js";
import { webhooksFeature } from "./features/webhooks.js";
import { JOB_KINDS } from "./job-kinds.js";
import type { JobKind } from "./kinds/kind.js";
import { checkRegistry } from "./kinds/registry.js";

/**
 * The features of a server running `kinds` (checked: two kinds that collide are refused):
 * theirs, then payments, MCP, apps, console, webhooks, metrics.
 */
export function featuresFor(kinds: readonly JobKind[]): FeatureFactory[] {
  const checked = checkRegistry(kinds);
  return [
    ...checked.map((k) => k.feature()),
    // The pay-per-job checkout of the kind that declares one (restore): the registry allows one.
    paymentsFeature({ checkout: checked.find((k) => k.checkout)?.checkout ?? null }),
    mcpFeature(),
    connectedAppsFeature(),
    consoleFeature(),
    webhooksFeature({ kinds: checked }),
    metricsFeature(),
  ];
}

/** The optional features `kinora serve` mounts: one per registered job kind, then the rest. */
export const FEATURES: FeatureFactory[] = featuresFor(JOB_KINDS);

/** The webhooks section of the environment, parsed from Config.env (README: configuration). */
import { z } from "zod";
import { allowsLoopbackUrls, ConfigError } from "../../config.js";
import { WEBHOOK_TIMEOUT_MS } from "../../domain/webhooks.js";

const WebhooksEnv = z.object({
  WEBHOOK_ALLOW_HTTP_LOOPBACK: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false"),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1000).max(10_000).default(WEBHOOK_TIMEOUT_MS),
});

export interface WebhooksConfig {
  /**
   * Development only (WEBHOOK_ALLOW_HTTP_LOOPBACK=true or ALLOW_LOOPBACK_URLS=1): receivers on
   * this machine's loopback (http://127.0.0.1:PORT/…, http://[::1]…, http://localhost…) are
   * accepted, over plain http too. Off: https to public addresses only.
   */
  allowHttpLoopback: boolean;
  /** Deliveries one node sends at once. */
  concurrency: number;
  /** Deliveries in flight to one receiver across all nodes: a slow one never holds the rest. */
  perEndpoint: number;
  /** One attempt's deadline: 10 s, shorter only for tests. */
  timeoutMs: number;
}

export function webhooksConfig(env: Readonly<Record<string, string>>): WebhooksConfig {
  const parsed = WebhooksEnv.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return {
    // ALLOW_LOOPBACK_URLS (every caller URL, development) includes webhook receivers.
    allowHttpLoopback:
      parsed.data.WEBHOOK_ALLOW_HTTP_LOOPBACK === "true" || allowsLoopbackUrls(env),
    concurrency: parsed.data.WEBHOOK_CONCURRENCY,
    perEndpoint: parsed.data.WEBHOOK_ENDPOINT_CONCURRENCY,
    timeoutMs: parsed.data.WEBHOOK_TIMEOUT_MS,
  };
}

/** The metrics section of the environment, parsed from Config.env. */
import { z } from "zod";
import { ConfigError } from "../config.js";

const MetricsEnv = z.object({
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  METRICS: z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
});

interface MetricsConfig {
  /** Bearer token a scraper sends to GET /metrics (the admin token works too). */
  token: string | undefined;
  /** METRICS=off: /metrics answers 404 and nothing is counted. */
  enabled: boolean;
}

/** The metrics settings from the environment (on or off, the scrape token). */
export function metricsConfig(env: Readonly<Record<string, string>>): MetricsConfig {
  const parsed = MetricsEnv.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return { token: parsed.data.METRICS_TOKEN, enabled: parsed.data.METRICS === "on" };
}

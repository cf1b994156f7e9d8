/**
 * What may reach the server and what it may reach: TRUST_PROXY, MCP_ALLOWED_ORIGINS,
 * ALLOW_LOOPBACK_URLS.
 */
import { z } from "zod";
import { invalidSetting } from "./error.js";
import { commaList } from "./values.js";

/** `scheme://host[:port]` of an http(s) page, nothing more (what a browser sends as Origin). */
function isWebOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) && value.replace(/\/$/, "").toLowerCase() === url.origin;
  } catch {
    return false;
  }
}

/** These settings' part of the environment's schema. */
export const ReachEnv = z.object({
  TRUST_PROXY: z.enum(["true", "false"], { error: "must be true or false" }).default("false"),
  MCP_ALLOWED_ORIGINS: commaList().refine(
    (list) => list.every(isWebOrigin),
    "must be comma-separated origins such as https://app.example or http://localhost:6274 (scheme, host and port only)",
  ),
  ALLOW_LOOPBACK_URLS: z
    .enum(["1", "0", "true", "false"], { error: "must be 1 or 0" })
    .default("0"),
  NODE_ENV: z.string().optional(),
});

/** What the server and a worker log at start while ALLOW_LOOPBACK_URLS is on. */
export const LOOPBACK_URLS_ON =
  "ALLOW_LOOPBACK_URLS is on (development only): video_url, image_url and webhook receivers may be on this machine's loopback (127.0.0.0/8, ::1, localhost); private and metadata addresses stay refused";

/**
 * Whether ALLOW_LOOPBACK_URLS is on in a cleaned environment (Config.env); loadConfig has
 * already refused it with NODE_ENV=production. For areas that read their own section of env.
 */
export function allowsLoopbackUrls(env: Readonly<Record<string, string>>): boolean {
  return env.ALLOW_LOOPBACK_URLS === "1" || env.ALLOW_LOOPBACK_URLS === "true";
}

/** The settings of this area; loopback URLs on a production server are a ConfigError. */
export function reachConfig(
  e: z.infer<typeof ReachEnv>,
  cleaned: Readonly<Record<string, string>>,
): { trustProxy: boolean; mcpAllowedOrigins: string[]; allowLoopbackUrls: boolean } {
  const allowLoopbackUrls = allowsLoopbackUrls(cleaned);
  if (allowLoopbackUrls && e.NODE_ENV === "production") {
    throw invalidSetting(
      "ALLOW_LOOPBACK_URLS: is refused when NODE_ENV=production. It lets video_url, image_url and webhooks reach this machine's own loopback services (127.0.0.1, ::1, localhost) and is for local development only: remove it from a production server.",
    );
  }
  return {
    trustProxy: e.TRUST_PROXY === "true",
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS,
    allowLoopbackUrls,
  };
}

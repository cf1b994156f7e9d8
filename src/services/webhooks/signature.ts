/**
 * Standard Webhooks signatures (standardwebhooks.com): `webhook-id`, `webhook-timestamp`
 * (seconds) and `webhook-signature` = `v1,` + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")),
 * where the key is the base64 after `whsec_`. Written on node:crypto; the tests check it with
 * the `standardwebhooks` package's verifier.
 */
import { createHmac } from "node:crypto";

const PREFIX = "whsec_";

/** The three headers a delivery of `body` carries. */
export function signedHeaders(
  secret: string,
  id: string,
  timestampSec: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    "base64",
  );
  const mac = createHmac("sha256", key).update(`${id}.${timestampSec}.${body}`).digest("base64");
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSec),
    "webhook-signature": `v1,${mac}`,
  };
}

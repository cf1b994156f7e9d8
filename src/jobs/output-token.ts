/**
 * Output upload tokens. A result's size is known only when the engine finishes, and storage
 * upload links are bound to an exact size, so a WorkItem's `outputUrl` is kinora's
 * POST /worker/output-ticket and its headers carry a signed token naming the storage key.
 * The worker POSTs `{size_bytes, content_type}` there and gets a presigned PUT for exactly
 * that size. The token (HMAC with the signing secret, expiring) is the only credential, so
 * in-process and remote workers use the same path without storage or database credentials.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const OUTPUT_TOKEN_HEADER = "x-kinora-output-token";

export interface OutputClaims {
  key: string;
  jobId: string;
  maxBytes: number;
  expSec: number;
}

const sign = (secret: string, payload: string) =>
  createHmac("sha256", secret).update(`output.${payload}`).digest("base64url");

export function signOutputToken(secret: string, claims: OutputClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${payload}.${sign(secret, payload)}`;
}

export function verifyOutputToken(
  secret: string,
  token: string,
  nowMs: number,
): OutputClaims | null {
  const [payload, mac] = token.split(".");
  if (!payload || !mac) return null;
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as OutputClaims;
    return claims.expSec * 1000 > nowMs ? claims : null;
  } catch {
    return null;
  }
}

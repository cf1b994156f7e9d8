/**
 * The URL a worker PUTs a finished clip to. Storage upload links need the exact size up
 * front, which nobody knows before the clip is made, so kinora takes the bytes itself at
 * PUT /files/clip-output/{token} (capped) and stores them. The token is an HMAC over the clip
 * id, the attempt and an expiry: only the worker holding that attempt's lease can use it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface OutputClaims {
  clipId: string;
  attempt: number;
  expiresAtSec: number;
}

const sign = (payload: string, secret: string) =>
  createHmac("sha256", `clip-output:${secret}`).update(payload).digest("base64url");

export function outputToken(claims: OutputClaims, secret: string): string {
  const payload = Buffer.from(
    JSON.stringify([claims.clipId, claims.attempt, claims.expiresAtSec]),
  ).toString("base64url");
  return `${payload}.${sign(payload, secret)}`;
}

/** The claims of a valid, unexpired token, else null (never says which check failed). */
export function readOutputToken(token: string, secret: string, nowMs: number): OutputClaims | null {
  const [payload, mac, extra] = token.split(".");
  if (!payload || !mac || extra !== undefined) return null;
  const given = Buffer.from(mac);
  const expected = Buffer.from(sign(payload, secret));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const [clipId, attempt, expiresAtSec] = JSON.parse(
      Buffer.from(payload, "base64url").toString("utf8"),
    ) as [unknown, unknown, unknown];
    if (typeof clipId !== "string" || typeof attempt !== "number") return null;
    if (typeof expiresAtSec !== "number" || expiresAtSec * 1000 < nowMs) return null;
    return { clipId, attempt, expiresAtSec };
  } catch {
    return null;
  }
}

export const OUTPUT_ROUTE_PREFIX = "/files/clip-output/";

/**
 * The one module that signs and checks tokens kinora issues for itself: a token names its
 * purpose (a token made for one thing never verifies as another), carries an expiry, and the
 * id of the key that signed it, so SIGNING_SECRET can be rotated: new tokens are signed with
 * the current secret while tokens signed with the previous one (SIGNING_SECRET_PREVIOUS)
 * still verify until they expire.
 *
 *   token = <kid>.<base64url(JSON claims)>.<base64url(HMAC-SHA256(secret, "kinora.<purpose>.v2.<kid>.<payload>"))>
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** Why a token did not verify, so a caller can tell the holder what to do. */
export type SignatureProblem = "malformed" | "forged" | "expired";

export type Checked<T> =
  | { ok: true; claims: T }
  | { ok: false; problem: SignatureProblem /** expired: when */; expiredAtMs?: number };

export interface Signer {
  /** Signs `claims` for `purpose`, valid until `expiresAtMs`. */
  sign(purpose: string, claims: Record<string, unknown>, expiresAtMs: number): string;
  /** The claims when the token is genuine, for `purpose` and unexpired at `nowMs`; else null. */
  verify<T extends Record<string, unknown>>(
    purpose: string,
    token: string,
    nowMs: number,
  ): T | null;
  /** Like verify, saying why a token is refused. A token for another purpose is "forged". */
  check<T extends Record<string, unknown>>(
    purpose: string,
    token: string,
    nowMs: number,
  ): Checked<T>;
}

const MAX_TOKEN_CHARS = 4096;
const B64URL = /^[A-Za-z0-9_-]+$/;

/** A short public id of a secret (never the secret): lets a verifier pick the right key. */
export function keyId(secret: string): string {
  return createHash("sha256").update(`kinora.kid.${secret}`).digest("base64url").slice(0, 8);
}

function mac(secret: string, purpose: string, kid: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(`kinora.${purpose}.v2.${kid}.${payload}`).digest();
}

export function createSigner(current: string, previous: readonly string[] = []): Signer {
  const keys = new Map([current, ...previous].map((s) => [keyId(s), s]));
  const currentKid = keyId(current);
  const signer: Signer = {
    sign(purpose, claims, expiresAtMs) {
      const payload = Buffer.from(
        JSON.stringify({ ...claims, exp: Math.ceil(expiresAtMs / 1000) }),
      ).toString("base64url");
      return `${currentKid}.${payload}.${mac(current, purpose, currentKid, payload).toString("base64url")}`;
    },
    check<T extends Record<string, unknown>>(
      purpose: string,
      token: string,
      nowMs: number,
    ): Checked<T> {
      if (typeof token !== "string" || token.length > MAX_TOKEN_CHARS) {
        return { ok: false, problem: "malformed" };
      }
      const [kid, payload, sig, extra] = token.split(".");
      if (
        !kid ||
        !payload ||
        !sig ||
        extra !== undefined ||
        !B64URL.test(payload) ||
        !B64URL.test(sig)
      ) {
        return { ok: false, problem: "malformed" };
      }
      const secret = keys.get(kid);
      if (!secret) return { ok: false, problem: "forged" };
      const given = Buffer.from(sig, "base64url");
      const expected = mac(secret, purpose, kid, payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { ok: false, problem: "forged" };
      }
      let claims: Record<string, unknown>;
      try {
        claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        return { ok: false, problem: "malformed" };
      }
      if (typeof claims.exp !== "number") return { ok: false, problem: "malformed" };
      if (claims.exp * 1000 <= nowMs) {
        return { ok: false, problem: "expired", expiredAtMs: claims.exp * 1000 };
      }
      return { ok: true, claims: claims as T };
    },
    verify<T extends Record<string, unknown>>(purpose: string, token: string, nowMs: number) {
      const checked = signer.check<T>(purpose, token, nowMs);
      return checked.ok ? checked.claims : null;
    },
  };
  return signer;
}

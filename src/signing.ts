/**
 * The one module that signs and checks tokens kinora issues for itself: a token names its
 * purpose (a token made for one thing never verifies as another), carries an expiry, and the
 * id of the key that signed it, so SIGNING_SECRET can be rotated: new tokens are signed with
 * the current secret while tokens signed with the previous one (SIGNING_SECRET_PREVIOUS)
 * still verify until they expire.
 *
 *   token = <kid>.<base64url(JSON claims)>.<base64url(HMAC-SHA256(secret, "kinora.<purpose>.v2.<kid>.<payload>"))>
 *
 * It also seals the few secrets kinora must read back (webhook signing secrets): AES-256-GCM
 * under a key derived (HKDF) from SIGNING_SECRET per purpose, tagged with the key's id so a
 * value sealed before a rotation still opens with SIGNING_SECRET_PREVIOUS and is sealed again.
 *
 *   sealed = sv1.<kid>.<iv>.<ciphertext>.<tag>   (all base64url; AAD "<purpose>.<kid>")
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";

/** Why a token did not verify, so a caller can tell the holder what to do. */
type SignatureProblem = "malformed" | "forged" | "expired";

type Checked<T> =
  | { ok: true; claims: T }
  | { ok: false; problem: SignatureProblem /** expired: when */; expiredAtMs?: number };

/** Signs and checks kinora's own tokens, each for one purpose, with an expiry and a key id. */
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
  /**
   * Encrypts a secret kinora must read back (a webhook signing secret) for `purpose`, under a
   * key derived from the current SIGNING_SECRET (AES-256-GCM; the key's id travels with it).
   */
  seal(purpose: string, plain: string): string;
  /**
   * The plain text of a sealed value, or null when it was sealed for another purpose, altered,
   * or with a key no longer configured. `stale`: sealed with a previous key (seal it again).
   */
  open(purpose: string, sealed: string): { plain: string; stale: boolean } | null;
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

const SEAL_VERSION = "sv1";

/** The encryption key of `purpose` derived from a signing secret (never the secret itself). */
function sealKey(secret: string, purpose: string): Buffer {
  const info = `kinora.seal.${purpose}.v1`;
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), info, 32));
}

function sealWith(secret: string, kid: string, purpose: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(secret, purpose), iv);
  cipher.setAAD(Buffer.from(`${purpose}.${kid}`));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const parts = [iv, data, cipher.getAuthTag()].map((b) => b.toString("base64url"));
  return [SEAL_VERSION, kid, ...parts].join(".");
}

function openWith(secret: string, kid: string, purpose: string, parts: string[]): string | null {
  const [iv, data, tag] = parts.map((p) => Buffer.from(p, "base64url"));
  if (!iv || !data || !tag) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealKey(secret, purpose), iv);
    decipher.setAAD(Buffer.from(`${purpose}.${kid}`));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/** A signer with the current secret and the previous ones (still accepted). */
export function createSigner(current: string, previous: readonly string[] = []): Signer {
  const keys = new Map([current, ...previous].map((s) => [keyId(s), s]));
  const currentKid = keyId(current);
  const signer: Signer = {
    seal: (purpose, plain) => sealWith(current, currentKid, purpose, plain),
    open(purpose, sealed) {
      const [version, kid, ...parts] = sealed.split(".");
      const secret = kid ? keys.get(kid) : undefined;
      if (version !== SEAL_VERSION || !kid || !secret || parts.length !== 3) return null;
      const plain = openWith(secret, kid, purpose, parts);
      return plain === null ? null : { plain, stale: kid !== currentKid };
    },
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
      // cast: the HMAC checked above: only this signer can have made claims, and it signs only T
      return { ok: true, claims: claims as T };
    },
    verify<T extends Record<string, unknown>>(purpose: string, token: string, nowMs: number) {
      const checked = signer.check<T>(purpose, token, nowMs);
      return checked.ok ? checked.claims : null;
    },
  };
  return signer;
}

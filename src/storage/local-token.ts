/**
 * Signed, expiring, single-purpose tokens for the local store's upload and
 * download URLs. A token is `<payload>.<mac>`: the payload is base64url JSON of
 * the claims, the mac is base64url HMAC-SHA256 over a versioned prefix plus
 * the payload. Nothing is kept server-side, so any node holding the secret can
 * check a token.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { isValidKey } from "./keys.js";

/** Upload claims: PUT to `key` of exactly (upTo: at most) `sizeBytes` bytes typed `contentType`. */
export interface UploadClaims {
  purpose: "upload";
  key: string;
  contentType: string;
  sizeBytes: number;
  upTo?: boolean;
  /** Unix seconds after which the token is refused. */
  expiresAtSec: number;
}

/** Download claims: GET (or HEAD) of `key`, with optional response overrides. */
export interface DownloadClaims {
  purpose: "download";
  key: string;
  filename?: string;
  contentType?: string;
  inline?: boolean;
  expiresAtSec: number;
}

export type TokenClaims = UploadClaims | DownloadClaims;

export type TokenCheck<P extends TokenClaims["purpose"]> =
  | { ok: true; claims: Extract<TokenClaims, { purpose: P }> }
  | { ok: false; detail: string };

// Domain separation: a MAC made for anything else (or a future format) never verifies here.
const MAC_PREFIX = "kinora.blob.v1.";
const MAX_TOKEN_LENGTH = 4096;
const B64URL = /^[A-Za-z0-9_-]+$/;

/** Wire form of the claims: short names keep URLs short. */
interface WireClaims {
  v: 1;
  p: "u" | "d";
  k: string;
  e: number;
  t?: string;
  n?: number;
  f?: string;
  i?: 1;
  u?: 1;
}

export function signToken(claims: TokenClaims, secret: string): string {
  const wire: WireClaims =
    claims.purpose === "upload"
      ? {
          v: 1,
          p: "u",
          k: claims.key,
          e: claims.expiresAtSec,
          t: claims.contentType,
          n: claims.sizeBytes,
          ...(claims.upTo ? { u: 1 as const } : {}),
        }
      : {
          v: 1,
          p: "d",
          k: claims.key,
          e: claims.expiresAtSec,
          t: claims.contentType,
          f: claims.filename,
          ...(claims.inline ? { i: 1 as const } : {}),
        };
  const payload = Buffer.from(JSON.stringify(wire)).toString("base64url");
  return `${payload}.${mac(payload, secret).toString("base64url")}`;
}

/**
 * Checks signature, shape, purpose and expiry, in that order, and says which
 * one failed so the caller learns what to fix.
 */
export function verifyToken<P extends TokenClaims["purpose"]>(
  token: string,
  purpose: P,
  secret: string,
  nowMs: number,
): TokenCheck<P> {
  const [payload, sig, extra] = token.split(".");
  if (
    token.length > MAX_TOKEN_LENGTH ||
    extra !== undefined ||
    !payload ||
    !sig ||
    !B64URL.test(payload) ||
    !B64URL.test(sig)
  ) {
    return { ok: false, detail: "this link is malformed; use the URL exactly as it was given" };
  }
  const given = Buffer.from(sig, "base64url");
  const expected = mac(payload, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      ok: false,
      detail: "this link's signature does not match; it was altered or is not ours",
    };
  }
  const claims = decodeClaims(payload);
  if (!claims)
    return { ok: false, detail: "this link is malformed; use the URL exactly as it was given" };
  if (claims.purpose !== purpose) {
    return {
      ok: false,
      detail:
        claims.purpose === "upload"
          ? "this is an upload link; it accepts only PUT"
          : "this is a download link; upload with the upload_url you were given",
    };
  }
  if (nowMs >= claims.expiresAtSec * 1000) {
    const when = new Date(claims.expiresAtSec * 1000).toISOString();
    return { ok: false, detail: `this link expired at ${when}; ask for a new one` };
  }
  return { ok: true, claims: claims as Extract<TokenClaims, { purpose: P }> };
}

function mac(payload: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(MAC_PREFIX).update(payload).digest();
}

/** Only runs on authenticated payloads; still checks shape so a bug in signing is caught here. */
function decodeClaims(payload: string): TokenClaims | null {
  let wire: Partial<WireClaims>;
  try {
    wire = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (wire === null || typeof wire !== "object" || wire.v !== 1) return null;
  const { k, e, t, n, f } = wire;
  if (typeof k !== "string" || !isValidKey(k) || !Number.isSafeInteger(e)) return null;
  const expiresAtSec = e as number;
  if (wire.p === "u") {
    if (typeof t !== "string" || !Number.isSafeInteger(n) || (n as number) < 0) return null;
    const upTo = wire.u === 1 ? { upTo: true } : {};
    return {
      purpose: "upload",
      key: k,
      contentType: t,
      sizeBytes: n as number,
      expiresAtSec,
      ...upTo,
    };
  }
  if (wire.p === "d") {
    if ((t !== undefined && typeof t !== "string") || (f !== undefined && typeof f !== "string")) {
      return null;
    }
    const inline = wire.i === 1 ? { inline: true } : {};
    return { purpose: "download", key: k, expiresAtSec, contentType: t, filename: f, ...inline };
  }
  return null;
}

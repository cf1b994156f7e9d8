/**
 * Signed, expiring, single-purpose tokens for the local store's upload and download URLs,
 * made and checked by the one signing module (src/signing.ts: purpose, expiry, key id for
 * rotation). Nothing is kept server-side, so any node holding the secret can check a token.
 */
import { type ChecksumAlgorithm, isBase64Digest, isChecksumAlgorithm } from "../domain/uploads.js";
import type { Signer } from "../signing.js";
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

/**
 * Part claims: PUT of part `partNumber` of upload `uploadId` of `key`, exactly `sizeBytes` bytes
 * written at `offset`, whose digest (`algorithm`, base64) must be `checksum`.
 */
export interface PartClaims {
  purpose: "part";
  key: string;
  uploadId: string;
  partNumber: number;
  offset: number;
  sizeBytes: number;
  algorithm: ChecksumAlgorithm;
  checksum: string;
  expiresAtSec: number;
}

type TokenClaims = UploadClaims | DownloadClaims | PartClaims;

type TokenCheck<P extends TokenClaims["purpose"]> =
  | { ok: true; claims: Extract<TokenClaims, { purpose: P }> }
  | { ok: false; detail: string };

/** Signer purposes: a link made for one never verifies as the other (or as any other token). */
const PURPOSE = { upload: "blob-upload", download: "blob-download", part: "blob-part" } as const;
const MALFORMED = "this link is malformed; use the URL exactly as it was given";

/** Wire form of the claims: short names keep URLs short (the signer adds `exp`). */
interface WireClaims {
  v: 1;
  p: "u" | "d" | "p";
  k: string;
  exp: number;
  t?: string;
  n?: number;
  f?: string;
  i?: 1;
  u?: 1;
  /** Part claims: upload id, part number, offset, algorithm, checksum. */
  up?: string;
  pn?: number;
  o?: number;
  a?: ChecksumAlgorithm;
  c?: string;
}

function partWire(claims: PartClaims) {
  const { key: k, uploadId: up, partNumber: pn, offset: o, sizeBytes: n } = claims;
  return { v: 1, p: "p", k, up, pn, o, n, a: claims.algorithm, c: claims.checksum };
}

export function signToken(claims: TokenClaims, signer: Signer): string {
  if (claims.purpose === "part") {
    return signer.sign(PURPOSE.part, partWire(claims), claims.expiresAtSec * 1000);
  }
  const wire =
    claims.purpose === "upload"
      ? {
          v: 1,
          p: "u",
          k: claims.key,
          t: claims.contentType,
          n: claims.sizeBytes,
          ...(claims.upTo ? { u: 1 as const } : {}),
        }
      : {
          v: 1,
          p: "d",
          k: claims.key,
          ...(claims.contentType !== undefined ? { t: claims.contentType } : {}),
          ...(claims.filename !== undefined ? { f: claims.filename } : {}),
          ...(claims.inline ? { i: 1 as const } : {}),
        };
  return signer.sign(PURPOSE[claims.purpose], wire, claims.expiresAtSec * 1000);
}

/**
 * Checks signature, shape, purpose and expiry, and says which one failed so the caller
 * learns what to fix.
 */
export function verifyToken<P extends TokenClaims["purpose"]>(
  token: string,
  purpose: P,
  signer: Signer,
  nowMs: number,
): TokenCheck<P> {
  const checked = signer.check<Partial<WireClaims>>(PURPOSE[purpose], token, nowMs);
  if (!checked.ok) {
    if (checked.problem === "malformed") return { ok: false, detail: MALFORMED };
    if (checked.problem === "expired") {
      const when = new Date(checked.expiredAtMs ?? nowMs).toISOString();
      return { ok: false, detail: `this link expired at ${when}; ask for a new one` };
    }
    const other = purpose === "download" ? "upload" : "download";
    if (signer.check(PURPOSE[other], token, Number.NEGATIVE_INFINITY).ok) {
      return {
        ok: false,
        detail:
          other === "upload"
            ? "this is an upload link; it accepts only PUT"
            : "this is a download link; upload with the upload_url you were given",
      };
    }
    return {
      ok: false,
      detail: "this link's signature does not match; it was altered or is not ours",
    };
  }
  const claims = decodeClaims(checked.claims);
  if (!claims || claims.purpose !== purpose) return { ok: false, detail: MALFORMED };
  // cast: the purpose was checked to be P just above
  return { ok: true, claims: claims as Extract<TokenClaims, { purpose: P }> };
}

/** Only runs on authenticated payloads; still checks shape so a bug in signing is caught here. */
function decodeClaims(wire: Partial<WireClaims>): TokenClaims | null {
  if (wire === null || typeof wire !== "object" || wire.v !== 1) return null;
  const { k, exp, t, n, f } = wire;
  if (typeof k !== "string" || !isValidKey(k) || !Number.isSafeInteger(exp)) return null;
  // cast: the signer verified exp is a number
  const expiresAtSec = exp as number;
  if (wire.p === "u") {
    // cast: checked by Number.isSafeInteger above (it is no type guard)
    if (typeof t !== "string" || !Number.isSafeInteger(n) || (n as number) < 0) return null;
    const upTo = wire.u === 1 ? { upTo: true } : {};
    return {
      purpose: "upload",
      key: k,
      contentType: t,
      // cast: checked by Number.isSafeInteger above (it is no type guard)
      sizeBytes: n as number,
      expiresAtSec,
      ...upTo,
    };
  }
  if (wire.p === "p") return decodePart(wire, k, expiresAtSec);
  if (wire.p === "d") {
    if ((t !== undefined && typeof t !== "string") || (f !== undefined && typeof f !== "string")) {
      return null;
    }
    const inline = wire.i === 1 ? { inline: true } : {};
    return { purpose: "download", key: k, expiresAtSec, contentType: t, filename: f, ...inline };
  }
  return null;
}

function decodePart(
  wire: Partial<WireClaims>,
  key: string,
  expiresAtSec: number,
): PartClaims | null {
  const { up, pn, o, n, a, c } = wire;
  // cast: Number.isSafeInteger(x) just before (it is no type guard)
  const whole = (x: unknown, min: number) => Number.isSafeInteger(x) && (x as number) >= min;
  if (typeof up !== "string" || !/^[0-9a-f]{32}$/.test(up)) return null;
  if (!whole(pn, 1) || !whole(o, 0) || !whole(n, 0)) return null;
  if (!isChecksumAlgorithm(a) || typeof c !== "string" || !isBase64Digest(a, c)) return null;
  return {
    purpose: "part",
    key,
    uploadId: up,
    // cast: checked by whole() above (Number.isSafeInteger is no type guard)
    partNumber: pn as number,
    // cast: checked by whole() above (Number.isSafeInteger is no type guard)
    offset: o as number,
    // cast: checked by Number.isSafeInteger above (it is no type guard)
    sizeBytes: n as number,
    algorithm: a,
    checksum: c,
    expiresAtSec,
  };
}

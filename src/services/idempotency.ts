/**
 * Idempotency records (after Stripe), shared by the HTTP middleware and the MCP tools.
 *
 * Who can reach a stored response: only a caller holding the same credential. The record is
 * keyed by SHA-256(credential) and the response is stored encrypted (AES-256-GCM) under a key
 * derived from the credential itself with HKDF and a per-record salt — so neither another
 * caller nor someone reading the database can read a replay, and a response that carries a
 * secret (a new agent key) is never stored readable. Only a verified credential scopes a
 * record (operations/run.ts decides): an unauthenticated caller gets no record and no replay.
 *
 * A record is "in flight" until its response is stored; an in-flight record older than the
 * lease (a crashed request) may be claimed again, and every record expires after the TTL.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { sql } from "kysely";
import { ApiError, invalidRequest } from "../domain/errors.js";
import type { CoreDeps } from "./deps.js";

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** How long a call's first answer is kept for its idempotency key. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An unfinished record older than this belongs to a request that died: it may be claimed again. */
export const IDEMPOTENCY_IN_FLIGHT_MS = 120_000;

/** How long records are kept, and when an unfinished one may be claimed again. */
interface IdempotencyLimits {
  ttlMs: number;
  inFlightMs: number;
}

/** The limits the server uses unless configured otherwise. */
export const DEFAULT_IDEMPOTENCY_LIMITS: IdempotencyLimits = {
  ttlMs: IDEMPOTENCY_TTL_MS,
  inFlightMs: IDEMPOTENCY_IN_FLIGHT_MS,
};

/** A call made with an idempotency key: who made it, which operation, what it sent. */
export interface IdempotentRequest {
  /** The caller's secret (bearer key or token). Never stored; only its digest and derived key. */
  credential: string;
  /** The caller's Idempotency-Key. */
  key: string;
  /** Everything that makes two requests "the same" (method, path, body, payment header …). */
  fingerprint: string;
  /** How the caller's surface names the key in a refusal (default the REST header's name). */
  keyName?: string;
}

/** The first answer of a call, kept to replay. */
export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

type Claim = { kind: "run" } | { kind: "replay"; response: StoredResponse };

const sha256hex = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

function checkIdempotencyKey(key: string, field = "Idempotency-Key"): void {
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw invalidRequest(`${field} must be 1 to 255 printable ASCII characters without spaces.`);
  }
}

/** Scope of a credential's records: its digest (the same one keys are looked up by). */
export const idempotencyScope = (credential: string) => sha256hex(credential);

/**
 * Claims the key for this request, or answers the stored response of the first request.
 * Throws 409 for the same key with another request, or while the first is still running.
 */
export async function claimIdempotency(
  deps: CoreDeps,
  req: IdempotentRequest,
  limits: IdempotencyLimits = DEFAULT_IDEMPOTENCY_LIMITS,
): Promise<Claim> {
  const name = req.keyName ?? "Idempotency-Key";
  checkIdempotencyKey(req.key, name);
  const scope = idempotencyScope(req.credential);
  const requestHash = sha256hex(req.fingerprint);
  const now = deps.clock();
  const expired = new Date(now.getTime() - limits.ttlMs);
  const abandoned = new Date(now.getTime() - limits.inFlightMs);
  // Claim the key; an expired record, or one abandoned in flight, is replaced.
  const claimed = await sql<{ idem_key: string }>`
    INSERT INTO idempotency_keys (scope, idem_key, request_hash, created_at)
    VALUES (${scope}, ${req.key}, ${requestHash}, ${now})
    ON CONFLICT (scope, idem_key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at,
          status_code = NULL, response_body = NULL, response_headers = NULL
      WHERE idempotency_keys.created_at < ${expired}
         OR (idempotency_keys.status_code IS NULL AND idempotency_keys.created_at < ${abandoned})
    RETURNING idem_key`.execute(deps.db);
  if (claimed.rows.length > 0) return { kind: "run" };

  const prior = await deps.db
    .selectFrom("idempotency_keys")
    .selectAll()
    .where("scope", "=", scope)
    .where("idem_key", "=", req.key)
    .executeTakeFirst();
  // Deleted between our insert attempt and this read (its request failed): claim afresh.
  if (!prior) return claimIdempotency(deps, req, limits);
  if (prior.request_hash !== requestHash) {
    throw new ApiError(
      "idempotency_key_reused",
      `This ${name} was already used with a different request; use a new key for a new request.`,
    );
  }
  if (prior.status_code === null || prior.response_body === null) {
    throw new ApiError(
      "idempotency_in_flight",
      `A request with this ${name} is still in progress; retry in a moment.`,
    );
  }
  const opened = openSealed(req.credential, prior.response_body);
  return { kind: "replay", response: { status: prior.status_code, ...opened } };
}

/** Stores the response of a claimed request, sealed for the caller's credential. */
export async function storeIdempotentResponse(
  deps: CoreDeps,
  req: IdempotentRequest,
  response: StoredResponse,
): Promise<void> {
  await deps.db
    .updateTable("idempotency_keys")
    .set({
      status_code: response.status,
      response_body: seal(req.credential, { body: response.body, headers: response.headers }),
      response_headers: null,
    })
    .where("scope", "=", idempotencyScope(req.credential))
    .where("idem_key", "=", req.key)
    .execute();
}

/** Forgets a claimed key whose request failed in a way the caller should be able to retry. */
export async function releaseIdempotency(deps: CoreDeps, req: IdempotentRequest): Promise<void> {
  await deps.db
    .deleteFrom("idempotency_keys")
    .where("scope", "=", idempotencyScope(req.credential))
    .where("idem_key", "=", req.key)
    .where("status_code", "is", null)
    .execute();
}

/** Deletes records past their TTL; returns how many. Run periodically by the server. */
export async function purgeIdempotencyRecords(
  deps: CoreDeps,
  limits: IdempotencyLimits = DEFAULT_IDEMPOTENCY_LIMITS,
  batch = 1000,
): Promise<number> {
  const cutoff = new Date(deps.clock().getTime() - limits.ttlMs);
  const result = await sql`
    DELETE FROM idempotency_keys WHERE ctid IN (
      SELECT ctid FROM idempotency_keys WHERE created_at < ${cutoff} LIMIT ${batch})`.execute(
    deps.db,
  );
  return Number(result.numAffectedRows ?? 0);
}

// --- sealing -------------------------------------------------------------------------------

const SEAL_VERSION = "s1";
const HKDF_INFO = "kinora.idempotency.replay.v1";

function sealKey(credential: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(credential, "utf8"), salt, HKDF_INFO, 32));
}

interface Sealed {
  body: string;
  headers: Record<string, string>;
}

function seal(credential: string, value: Sealed): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(credential, salt), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  const parts = [salt, iv, data, cipher.getAuthTag()].map((b) => b.toString("base64url"));
  return [SEAL_VERSION, ...parts].join(".");
}

function openSealed(credential: string, stored: string): Sealed {
  const [version, salt, iv, data, tag] = stored.split(".");
  if (version !== SEAL_VERSION || !salt || !iv || !data || !tag) {
    throw new Error("idempotency record is not sealed in a known format");
  }
  const decipher = createDecipheriv(
    "aes-256-gcm",
    sealKey(credential, Buffer.from(salt, "base64url")),
    Buffer.from(iv, "base64url"),
  );
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  const plain = Buffer.concat([
    decipher.update(Buffer.from(data, "base64url")),
    decipher.final(),
  ]).toString("utf8");
  // cast: authenticated decryption (AES-GCM): only this module's seal can have written it
  return JSON.parse(plain) as Sealed;
}

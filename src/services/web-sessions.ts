/**
 * Browser sessions of the owner's pages (console, consent), kept in the database: a row per
 * session under the SHA-256 digest of its id (the id itself lives only in the browser's
 * cookie), expiring when idle and absolutely. A session acts as the wallet key that signed in —
 * the pages run the same operations as REST, as that key — so the row keeps the key sealed
 * (AES-256-GCM) under a key derived from the session id with HKDF: a copy of the database
 * without the cookie cannot read it, and the key is never stored in clear.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { hashSecret } from "../domain/ids.js";
import type { CoreDeps } from "./deps.js";

/** A session ends after this long without use… */
const SESSION_IDLE_MS = 24 * 3600_000;
/** …and after this long in any case. */
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
/** last_seen is written at most this often (not on every page view). */
const TOUCH_MS = 5 * 60_000;

/** A live session: whose it is and the wallet key it acts as. */
export interface WebSession {
  walletId: string;
  /** The wallet key that signed in, unsealed with the session id (never stored in clear). */
  walletKey: string;
}

const SEAL_VERSION = "s1";
const HKDF_INFO = "kinora.web-session.wallet-key.v1";

const sealKey = (sessionId: string, salt: Buffer) =>
  Buffer.from(hkdfSync("sha256", Buffer.from(sessionId, "utf8"), salt, HKDF_INFO, 32));

/** `secret` sealed for the holder of `sessionId`: version.salt.iv.data.tag, base64url. */
function seal(sessionId: string, secret: string): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(sessionId, salt), iv);
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  const parts = [salt, iv, data, cipher.getAuthTag()].map((b) => b.toString("base64url"));
  return [SEAL_VERSION, ...parts].join(".");
}

/** The sealed secret, or null when it is not sealed for this session id (or not at all). */
function unseal(sessionId: string, sealed: string | null): string | null {
  const [version, salt, iv, data, tag] = (sealed ?? "").split(".");
  if (version !== SEAL_VERSION || !salt || !iv || !data || !tag) return null;
  try {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      sealKey(sessionId, Buffer.from(salt, "base64url")),
      Buffer.from(iv, "base64url"),
    );
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    const plain = Buffer.concat([
      decipher.update(Buffer.from(data, "base64url")),
      decipher.final(),
    ]);
    return plain.toString("utf8");
  } catch {
    return null;
  }
}

/**
 * Starts session `id` for the wallet whose key is `walletKey`; the session `previousId` names
 * (the browser's earlier one) ends here rather than staying valid until it expires.
 */
export async function startWebSession(
  deps: CoreDeps,
  s: { id: string; previousId?: string | undefined; walletId: string; walletKey: string },
): Promise<void> {
  if (s.previousId && s.previousId.length <= 100) {
    await deps.db
      .deleteFrom("web_sessions")
      .where("id_hash", "=", hashSecret(s.previousId))
      .execute();
  }
  const now = deps.clock();
  await deps.db
    .insertInto("web_sessions")
    .values({
      id_hash: hashSecret(s.id),
      wallet_id: s.walletId,
      key_sealed: seal(s.id, s.walletKey),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_IDLE_MS),
    })
    .execute();
  deps.log.info("web session started", { wallet_id: s.walletId });
}

/**
 * The live session `id` names, or null: unknown, expired (idle or absolutely), or from before
 * sessions kept their key (such a browser signs in again).
 */
export async function readWebSession(deps: CoreDeps, id: string): Promise<WebSession | null> {
  if (id.length > 100) return null;
  const idHash = hashSecret(id);
  const row = await deps.db
    .selectFrom("web_sessions")
    .selectAll()
    .where("id_hash", "=", idHash)
    .executeTakeFirst();
  const now = deps.clock().getTime();
  if (!row || new Date(row.expires_at).getTime() <= now) return null;
  if (now - new Date(row.created_at).getTime() > SESSION_MAX_MS) return null;
  const walletKey = unseal(id, row.key_sealed);
  if (walletKey === null) return null;
  if (now - new Date(row.last_seen_at).getTime() > TOUCH_MS) {
    await deps.db
      .updateTable("web_sessions")
      .set({ last_seen_at: new Date(now), expires_at: new Date(now + SESSION_IDLE_MS) })
      .where("id_hash", "=", idHash)
      .execute();
  }
  return { walletId: row.wallet_id, walletKey };
}

/** Ends session `id` (sign-out). */
export async function endWebSession(deps: CoreDeps, id: string): Promise<void> {
  await deps.db.deleteFrom("web_sessions").where("id_hash", "=", hashSecret(id)).execute();
}

/** Deletes sessions past their expiry (housekeeping); returns how many. */
export async function purgeWebSessions(deps: CoreDeps): Promise<number> {
  const rows = await deps.db
    .deleteFrom("web_sessions")
    .where("expires_at", "<", deps.clock())
    .executeTakeFirst();
  return Number(rows.numDeletedRows ?? 0);
}

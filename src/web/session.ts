/**
 * Browser sessions of the owner's console and the consent page: a random id in an HttpOnly,
 * SameSite=Lax cookie (Secure when PUBLIC_URL is https), stored only as its SHA-256 digest,
 * expiring when idle and absolutely, ended by sign-out or by a new sign-in. Forms carry a CSRF token: an HMAC of
 * the browser's cookie (the session's, or before sign-in a random "pre" cookie), so no token
 * is stored and a forged form from another site cannot know it.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { hashSecret } from "../domain/ids.js";
import type { AppEnv } from "../http/env.js";
import type { CoreDeps } from "../services/deps.js";
import type { Signer } from "../signing.js";

const SESSION_COOKIE = "kinora_session";
const PRE_COOKIE = "kinora_pre";
/** A session ends after this long without use… */
const SESSION_IDLE_MS = 24 * 3600_000;
/** …and after this long in any case. */
const SESSION_MAX_MS = 7 * 24 * 3600_000;
/** last_seen is written at most this often (not on every page view). */
const TOUCH_MS = 5 * 60_000;

/** What the web pages need for sessions and forms. */
export interface WebDeps extends CoreDeps {
  signer: Signer;
  publicUrl: string;
}

/** A signed-in console session. */
interface Session {
  walletId: string;
  idHash: string;
}

function cookieOptions(deps: WebDeps, maxAgeSec: number) {
  return {
    path: "/",
    httpOnly: true,
    sameSite: "Lax" as const,
    secure: deps.publicUrl.startsWith("https:"),
    maxAge: maxAgeSec,
  };
}

/**
 * Starts a new session with a new id (never the one the browser had): a sign-in rotates the
 * session, and the session it replaces ends here rather than staying valid until it expires.
 */
export async function startSession(deps: WebDeps, c: Context<AppEnv>, walletId: string) {
  const previous = getCookie(c, SESSION_COOKIE);
  if (previous && previous.length <= 100) {
    await deps.db.deleteFrom("web_sessions").where("id_hash", "=", hashSecret(previous)).execute();
  }
  const id = randomBytes(32).toString("base64url");
  const now = deps.clock();
  await deps.db
    .insertInto("web_sessions")
    .values({
      id_hash: hashSecret(id),
      wallet_id: walletId,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_IDLE_MS),
    })
    .execute();
  setCookie(c, SESSION_COOKIE, id, cookieOptions(deps, SESSION_MAX_MS / 1000));
  deps.log.info("web session started", { wallet_id: walletId });
}

export async function readSession(deps: WebDeps, c: Context<AppEnv>): Promise<Session | null> {
  const id = getCookie(c, SESSION_COOKIE);
  if (!id || id.length > 100) return null;
  const idHash = hashSecret(id);
  const row = await deps.db
    .selectFrom("web_sessions")
    .selectAll()
    .where("id_hash", "=", idHash)
    .executeTakeFirst();
  const now = deps.clock().getTime();
  if (!row || new Date(row.expires_at).getTime() <= now) return null;
  if (now - new Date(row.created_at).getTime() > SESSION_MAX_MS) return null;
  if (now - new Date(row.last_seen_at).getTime() > TOUCH_MS) {
    await deps.db
      .updateTable("web_sessions")
      .set({ last_seen_at: new Date(now), expires_at: new Date(now + SESSION_IDLE_MS) })
      .where("id_hash", "=", idHash)
      .execute();
  }
  return { walletId: row.wallet_id, idHash };
}

export async function endSession(deps: WebDeps, c: Context<AppEnv>) {
  const id = getCookie(c, SESSION_COOKIE);
  if (id) await deps.db.deleteFrom("web_sessions").where("id_hash", "=", hashSecret(id)).execute();
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
}

const CSRF = "csrf";
/** A form token outlives the pages that carry it by far, and the pre-sign-in cookie too. */
const CSRF_TTL_MS = 24 * 3600_000;
/** The cookie a token is bound to, as a digest (the token never carries the cookie itself). */
const bound = (value: string) => createHash("sha256").update(value).digest("base64url");

/** The token forms must carry, bound to this browser's cookie (set here if it has none). */
export function csrfToken(deps: WebDeps, c: Context<AppEnv>): string {
  let value = getCookie(c, SESSION_COOKIE);
  if (!value) {
    value = getCookie(c, PRE_COOKIE);
    if (!value) {
      value = randomBytes(24).toString("base64url");
      setCookie(c, PRE_COOKIE, value, cookieOptions(deps, 24 * 3600));
    }
  }
  return deps.signer.sign(CSRF, { b: bound(value) }, deps.clock().getTime() + CSRF_TTL_MS);
}

/** Whether a submitted form's token belongs to this browser. */
export function csrfValid(deps: WebDeps, c: Context<AppEnv>, token: unknown): boolean {
  if (typeof token !== "string" || token.length === 0 || token.length > 400) return false;
  const claims = deps.signer.verify<{ b?: unknown }>(CSRF, token, deps.clock().getTime());
  if (!claims || typeof claims.b !== "string") return false;
  const given = Buffer.from(claims.b);
  const candidates = [getCookie(c, SESSION_COOKIE), getCookie(c, PRE_COOKIE)].filter(
    (v): v is string => typeof v === "string" && v.length > 0,
  );
  return candidates.some((value) => {
    const expected = Buffer.from(bound(value));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

/** Deletes sessions past their expiry (housekeeping). */
export async function purgeSessions(deps: CoreDeps): Promise<number> {
  const rows = await deps.db
    .deleteFrom("web_sessions")
    .where("expires_at", "<", deps.clock())
    .executeTakeFirst();
  return Number(rows.numDeletedRows ?? 0);
}

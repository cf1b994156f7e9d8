/**
 * Browser sessions of the owner's console and the consent page: a random id in an HttpOnly,
 * SameSite=Lax cookie (Secure when PUBLIC_URL is https), kept by a SessionStore (the database's,
 * services/web-sessions.ts) only as its digest, with the wallet key that signed in sealed under
 * the id; ended by sign-out or by a new sign-in. Forms carry a CSRF token: an HMAC of the
 * browser's cookie (the session's, or before sign-in a random "pre" cookie), so no token is
 * stored and a forged form from another site cannot know it.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../http/env.js";
import type { Signer } from "../signing.js";

const SESSION_COOKIE = "kinora_session";
const PRE_COOKIE = "kinora_pre";

/** A signed-in browser: the wallet it belongs to and the wallet key it acts as. */
export interface Session {
  walletId: string;
  walletKey: string;
}

/** Where sessions are kept: by the digest of their id, the key sealed under the id. */
export interface SessionStore {
  start(s: {
    id: string;
    previousId?: string | undefined;
    walletId: string;
    walletKey: string;
  }): Promise<void>;
  /** The live session of `id`, or null (unknown, expired, or unreadable). */
  read(id: string): Promise<Session | null>;
  end(id: string): Promise<void>;
  /** How long a session lives at most: the cookie's max-age. */
  maxAgeMs: number;
}

/** What the web pages need for sessions and forms. */
export interface WebDeps {
  signer: Signer;
  clock: () => Date;
  publicUrl: string;
  sessions: SessionStore;
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
 * Signs the browser in as `walletKey` with a new session id (never the one the browser had):
 * a sign-in rotates the session, and the session it replaces ends here.
 */
export async function startSession(
  deps: WebDeps,
  c: Context<AppEnv>,
  s: { walletId: string; walletKey: string },
) {
  const id = randomBytes(32).toString("base64url");
  await deps.sessions.start({ id, previousId: getCookie(c, SESSION_COOKIE), ...s });
  setCookie(c, SESSION_COOKIE, id, cookieOptions(deps, deps.sessions.maxAgeMs / 1000));
}

/** The browser's live session, or null. */
export async function readSession(deps: WebDeps, c: Context<AppEnv>): Promise<Session | null> {
  const id = getCookie(c, SESSION_COOKIE);
  return id ? deps.sessions.read(id) : null;
}

/** Signs the browser out. */
export async function endSession(deps: WebDeps, c: Context<AppEnv>) {
  const id = getCookie(c, SESSION_COOKIE);
  if (id) await deps.sessions.end(id);
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

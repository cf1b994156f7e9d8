/**
 * What the owner's pages (console, consent) are given: the server's operations with REST's
 * policies (web/operation-client.ts runs them through the shared runner), and their sessions
 * in the database. Built here so web/ imports no service: it declares what it needs, and
 * composition hands it over.
 */
import type { RouteContext } from "../feature.js";
import { takeOperationRate } from "../http/operation-rate.js";
import { authenticate } from "../services/auth.js";
import type { Platform } from "../services/platform.js";
import { credentialDigest, signInBucket, takeRate } from "../services/rate-buckets.js";
import {
  endWebSession,
  purgeWebSessions,
  readWebSession,
  SESSION_MAX_MS,
  startWebSession,
} from "../services/web-sessions.js";
import type { PagesSurface } from "../web/operation-client.js";
import type { WebDeps } from "../web/session.js";

export { purgeWebSessions };

/** One try of a secret from `address` against the sign-in rule (console and consent pages). */
async function takeSignIn(p: Platform, address: string) {
  const cfg = p.config.rateLimits;
  if (!cfg.enabled) return { ok: true } as const;
  const d = await p.rateLimiter.take(signInBucket(address), cfg.signIn);
  if (d.ok) return { ok: true } as const;
  p.events?.rateLimited({ rule: "signin" });
  return { ok: false, retryAfterSec: d.resetSec } as const;
}

/** The pages' view of the server's operations, with REST's policies. */
export function pagesSurface(p: Platform, ctx: RouteContext): PagesSurface {
  return {
    operations: ctx.operations,
    kinds: ctx.kinds,
    // The kind's pictures role (restores declare GET /cloud/jobs/{id}/pictures).
    pictures: (kind) => kind.pictures,
    authenticate: (secret) => authenticate(p, secret),
    rates: {
      key: async (credential) => {
        await takeRate(p, "key", credentialDigest(credential));
      },
      bucket: async (bucket, credential, address) => {
        await takeOperationRate(p, bucket, credential, address);
      },
      signIn: (address) => takeSignIn(p, address),
    },
    idempotency: { deps: p, inFlightMs: p.config.idempotencyInFlightMs },
    log: p.log,
    publicUrl: p.publicUrl,
    trustProxy: p.config.trustProxy,
  };
}

/** The pages' sessions (kept in the database) and form tokens. */
export function webDeps(p: Platform): WebDeps {
  return {
    signer: p.signer,
    clock: p.clock,
    publicUrl: p.publicUrl,
    sessions: {
      start: (s) => startWebSession(p, s),
      read: (id) => readWebSession(p, id),
      end: (id) => endWebSession(p, id),
      maxAgeMs: SESSION_MAX_MS,
    },
  };
}

/**
 * Bearer-key authentication (spec rules 1–7). Keys come only from the Authorization header;
 * a key in the URL is accepted only by the MCP endpoint (its own middleware), never here.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError, unauthorized } from "../../domain/errors.js";
import { authenticate, type Principal } from "../../services/auth.js";
import type { CoreDeps } from "../../services/deps.js";
import type { AppEnv } from "../env.js";

function bearerSecret(c: Context<AppEnv>): string | undefined {
  if (c.req.query("key") !== undefined) {
    throw new ApiError(
      "key_in_url",
      "Keys are accepted in the URL (?key=) only on /mcp, and only agent keys; send it as Authorization: Bearer <key>.",
    );
  }
  const header = c.req.header("authorization");
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    throw unauthorized("The Authorization header must be `Bearer <key>`.");
  }
  return match[1];
}

export interface KeyOptions {
  /** Wallet-key-only endpoints (keys management) refuse agent keys with 403. */
  walletOnly?: boolean;
}

export function requireKey(deps: CoreDeps, opts: KeyOptions = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const secret = bearerSecret(c);
    if (!secret) {
      throw unauthorized(
        "This endpoint needs a key: send Authorization: Bearer <pmk_ or pak_ key>.",
      );
    }
    const principal = await authenticate(deps, secret);
    if (opts.walletOnly && principal.kind !== "wallet") {
      throw new ApiError(
        "wallet_key_required",
        "Only the wallet key (pmk_) can do this; agent keys cannot manage keys.",
      );
    }
    c.set("principal", principal);
    c.set("maybePrincipal", principal);
    await next();
  });
}

/** For endpoints that work with or without a key (e.g. POST /cloud/jobs). A bad key still fails. */
export function optionalKey(deps: CoreDeps) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const secret = bearerSecret(c);
    const principal: Principal | undefined = secret ? await authenticate(deps, secret) : undefined;
    c.set("maybePrincipal", principal);
    await next();
  });
}

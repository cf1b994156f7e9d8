/**
 * Who calls a REST operation (spec rules 1–7). Keys come only from the Authorization header; a
 * key in the URL is accepted only by the MCP endpoint (its own caller check), never here. The
 * operator's endpoints take the ADMIN_TOKEN instead, compared in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import type { AuthMode } from "../../api/operation.js";
import { ApiError, unauthorized } from "../../domain/errors.js";
import { authenticate, type Principal } from "../../services/auth.js";
import type { CoreDeps } from "../../services/deps.js";
import type { AppEnv } from "../env.js";

/** The secret of `Authorization: Bearer <secret>`; undefined without the header. */
function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized("The Authorization header must be `Bearer <key>`.");
  return match[1];
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Whether `Authorization` carries exactly `expected` (a machine token: the operator's, the
 * workers', the metrics scraper's). Digests are compared, so the time taken says nothing
 * about the token, not even its length.
 */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return Boolean(match?.[1]) && timingSafeEqual(digest(match?.[1] ?? ""), digest(expected));
}

interface Caller {
  principal: Principal | undefined;
  /** The secret sent (never stored): scopes idempotency records and rate buckets. */
  credential: string | undefined;
}

/**
 * The caller of an operation with auth `mode`. A key that was sent must be good even where
 * none is needed (a bad key is a 401, not silently ignored); whether one is required is the
 * shared runner's rule (api/run.ts), the same over MCP.
 */
export async function callerOf(
  c: Context<AppEnv>,
  mode: AuthMode,
  deps: CoreDeps & { adminToken: string },
): Promise<Caller> {
  const header = c.req.header("authorization");
  if (mode === "admin") {
    if (!bearerMatches(header, deps.adminToken)) {
      throw unauthorized("Operator endpoints need Authorization: Bearer <ADMIN_TOKEN>.");
    }
    return { principal: undefined, credential: bearerOf(header) };
  }
  if (mode === "none") return { principal: undefined, credential: undefined };
  if (c.req.query("key") !== undefined) {
    throw new ApiError(
      "key_in_url",
      "Keys are accepted in the URL (?key=) only on /mcp, and only agent keys; send it as Authorization: Bearer <key>.",
    );
  }
  const secret = bearerOf(header);
  if (!secret) return { principal: undefined, credential: undefined };
  return { principal: await authenticate(deps, secret), credential: secret };
}

/**
 * Idempotency-Key on POSTs (after Stripe): the first request with a key runs and its response
 * is stored; the same key with the same method, path and body replays that response; with
 * another body it is a 409. Keys are scoped to the caller's credential, kept 24 hours, and a
 * 5xx is not stored so the caller can retry it.
 */
import { createHash } from "node:crypto";
import { createMiddleware } from "hono/factory";
import { sql } from "kysely";
import { badRequest, conflict } from "../../domain/errors.js";
import type { CoreDeps } from "../../services/deps.js";
import type { AppEnv } from "../env.js";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const REPLAYED_HEADERS = ["content-type", "location", "payment-required", "payment-response"];

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

export function idempotency(deps: CoreDeps) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const key = c.req.header("idempotency-key");
    if (c.req.method !== "POST" || key === undefined) return next();
    if (!KEY_PATTERN.test(key)) {
      throw badRequest(
        "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces.",
      );
    }
    const credential = c.req.header("authorization") ?? "";
    const scope = credential ? sha256(credential) : "anonymous";
    const body = await c.req.text();
    const url = new URL(c.req.url);
    // A signed x402 retry is a different request from the unpaid one, even with the same body.
    const payment = c.req.header("payment-signature") ?? "";
    const requestHash = sha256(`${c.req.method} ${url.pathname}${url.search}\n${payment}\n${body}`);
    const now = deps.clock();
    const expired = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);

    // Claim the key; an expired record is replaced, an existing one is left alone.
    const claimed = await sql<{ idem_key: string }>`
      INSERT INTO idempotency_keys (scope, idem_key, request_hash, created_at)
      VALUES (${scope}, ${key}, ${requestHash}, ${now})
      ON CONFLICT (scope, idem_key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at,
            status_code = NULL, response_body = NULL, response_headers = NULL
        WHERE idempotency_keys.created_at < ${expired}
      RETURNING idem_key`.execute(deps.db);

    if (claimed.rows.length === 0) {
      const prior = await deps.db
        .selectFrom("idempotency_keys")
        .selectAll()
        .where("scope", "=", scope)
        .where("idem_key", "=", key)
        .executeTakeFirstOrThrow();
      if (prior.request_hash !== requestHash) {
        throw conflict(
          "This Idempotency-Key was already used with a different request; use a new key for a new request.",
        );
      }
      if (prior.status_code === null) {
        throw conflict(
          "A request with this Idempotency-Key is still in progress; retry in a moment.",
        );
      }
      const headers = new Headers(
        JSON.parse(prior.response_headers ?? "{}") as Record<string, string>,
      );
      headers.set("Idempotent-Replayed", "true");
      return new Response(prior.response_body, { status: prior.status_code, headers });
    }

    let stored = false;
    try {
      await next();
      if (c.res.status < 500) {
        const text = await c.res.clone().text();
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = c.res.headers.get(name);
          if (value !== null) headers[name] = value;
        }
        await deps.db
          .updateTable("idempotency_keys")
          .set({
            status_code: c.res.status,
            response_body: text,
            response_headers: JSON.stringify(headers),
          })
          .where("scope", "=", scope)
          .where("idem_key", "=", key)
          .execute();
        stored = true;
      }
    } finally {
      if (!stored) {
        await deps.db
          .deleteFrom("idempotency_keys")
          .where("scope", "=", scope)
          .where("idem_key", "=", key)
          .execute();
      }
    }
  });
}

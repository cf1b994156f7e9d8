/**
 * Request id and one JSON access-log line per request. The path is logged through the
 * logger's redaction, so a `?key=` never reaches the log; Authorization is never logged.
 */
import { createMiddleware } from "hono/factory";
import type { IdGenerator } from "../../domain/ids.js";
import type { Logger } from "../../logger.js";
import type { AppEnv } from "../env.js";
import { withEarlyHeaders } from "./early-headers.js";

const SAFE_REQUEST_ID = /^[A-Za-z0-9_.-]{8,64}$/;

/** Gives each request its id (or the caller's X-Request-Id) and a logger carrying it. */
export function requestContext(log: Logger, ids: IdGenerator) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : ids("req");
    c.set("requestId", requestId);
    const started = performance.now();
    await withEarlyHeaders(c, { "X-Request-Id": requestId }, next);
    const url = new URL(c.req.url);
    const principal = c.get("principal");
    log.info("request", {
      request_id: requestId,
      method: c.req.method,
      path: url.pathname + url.search,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      wallet_id: principal?.walletId,
      key_id: principal?.kind === "agent" ? principal.keyId : undefined,
    });
  });
}

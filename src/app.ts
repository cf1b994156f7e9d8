/**
 * buildApp(deps): the whole HTTP surface — middleware, error handling, then every feature's
 * routes (the core ones of features/core.ts and the optional ones passed in), mounted alike.
 * No I/O happens here beyond what the routes do per request, so tests call it in-process.
 */
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./domain/errors.js";
import { JSON_BODY_MAX_BYTES } from "./domain/limits.js";
import {
  adminFeature,
  filesFeature,
  systemFeature,
  walletFeature,
  workerApiFeature,
} from "./features/core.js";
import { handleError } from "./http/errors.js";
import { installFallbacks } from "./http/fallbacks.js";
import { errorEnvelope } from "./http/middleware/error-envelope.js";
import { idempotency } from "./http/middleware/idempotency.js";
import { jsonBodiesOnly } from "./http/middleware/json-only.js";
import { observeRequests } from "./http/middleware/observe-requests.js";
import { rateRules } from "./http/middleware/rate-rules.js";
import { refuseNul } from "./http/middleware/refuse-nul.js";
import { requestContext } from "./http/middleware/request-context.js";
import { createRouter, type Router } from "./http/router.js";
import type { DbWorkSource } from "./jobs/work-source.js";
import type { Feature, Platform, RouteContext } from "./platform.js";
import { DEFAULT_IDEMPOTENCY_LIMITS } from "./services/idempotency.js";

/** What the routes need; the Platform satisfies it. */
export type AppDeps = Platform;

export interface BuildOptions {
  isReady?: () => boolean;
  /** Path prefixes whose bodies are streamed uploads, exempt from the JSON body rules. */
  rawBodyPrefixes?: string[];
  /** The server's job system source, shared with the worker API. */
  workSource?: () => DbWorkSource | undefined;
}

export function buildApp(deps: AppDeps, features: Feature[] = [], opts: BuildOptions = {}): Router {
  const app = createRouter();
  const rawPrefixes = ["/files/", ...(opts.rawBodyPrefixes ?? [])];
  // JSON-RPC bodies are checked by the MCP server itself (bad input becomes a tool error).
  const isMcp = (path: string) => path === "/mcp";
  const isRaw = (path: string) => rawPrefixes.some((p) => path.startsWith(p));
  const limit = bodyLimit({
    maxSize: JSON_BODY_MAX_BYTES,
    onError: () => {
      throw new ApiError(
        "too_large",
        `The request body is too large; JSON bodies are limited to ${JSON_BODY_MAX_BYTES / 1024} KB.`,
      );
    },
  });

  app.onError(handleError(deps.log));
  app.use("*", requestContext(deps.log, deps.ids));
  app.use("*", observeRequests(deps.events));
  app.use("*", errorEnvelope);
  const onLimited = (rule: string) => deps.events.rateLimited({ rule });
  const { rateLimits, trustProxy } = deps.config;
  app.use("*", rateRules(deps.rateLimiter, rateLimits, trustProxy, onLimited));
  // A GET or HEAD has no body to limit. Asking for one anyway (Hono's bodyLimit reads
  // `req.raw.body`) makes @hono/node-server build a whole fetch Request: ~8 % of the CPU of
  // an authenticated GET.
  const bodiless = (method: string) => method === "GET" || method === "HEAD";
  app.use("*", async (c, next) =>
    isRaw(c.req.path) || bodiless(c.req.method) ? next() : limit(c, next),
  );
  // OAuth (RFC 6749 is form-encoded) and the server-rendered pages post forms.
  const isForm = (path: string) => path.startsWith("/oauth/") || path.startsWith("/console");
  app.use("*", async (c, next) =>
    isRaw(c.req.path) || isForm(c.req.path) ? next() : jsonBodiesOnly(c, next),
  );
  app.use("*", refuseNul({ isRaw: (path) => isRaw(path) || isMcp(path) }));
  const idem = idempotency(deps, {
    ttlMs: DEFAULT_IDEMPOTENCY_LIMITS.ttlMs,
    inFlightMs: deps.config.idempotencyInFlightMs,
  });
  // MCP spending tools take their own idempotency_key (a JSON-RPC call has no header of its own).
  app.use("*", async (c, next) =>
    isRaw(c.req.path) || isMcp(c.req.path) ? next() : idem(c, next),
  );

  const ctx: RouteContext = {
    queues: features.flatMap((f) => f.queues ?? []),
    isReady: opts.isReady ?? (() => true),
    ...(opts.workSource ? { workSource: opts.workSource } : {}),
  };
  const mounted = [
    systemFeature(deps),
    walletFeature(deps),
    adminFeature(deps),
    filesFeature(deps),
    ...features,
    workerApiFeature(deps),
  ];
  for (const feature of mounted) feature.routes?.(app, ctx);

  installFallbacks(app);
  return app;
}

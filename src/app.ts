/**
 * buildApp(deps): the whole HTTP surface — middleware, error handling, then every feature's
 * routes (the core ones of features/core.ts and the optional ones passed in), mounted alike.
 * No I/O happens here beyond what the routes do per request, so tests call it in-process.
 */

import type { Feature, Platform, RouteContext } from "./feature.js";
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
import { keyGuesses, keyRate } from "./http/middleware/key-rate.js";
import { observeRequests } from "./http/middleware/observe-requests.js";
import { refuseNulInUrl } from "./http/middleware/refuse-nul.js";
import { requestContext } from "./http/middleware/request-context.js";
import { mountOperations } from "./http/operations.js";
import { createRouter, type Router } from "./http/router.js";
import type { DbWorkSource } from "./jobs/work-source.js";

/** What the routes need; the Platform satisfies it. */
type AppDeps = Platform;

/** What buildApp may be told besides the features: readiness and the job system source. */
interface BuildOptions {
  isReady?: () => boolean;
  /** The server's job system source, shared with the worker API. */
  workSource?: () => DbWorkSource | undefined;
}

/**
 * The HTTP app: the middleware for every request, every feature's operations and routes, the
 * fallbacks.
 */
export function buildApp(deps: AppDeps, features: Feature[] = [], opts: BuildOptions = {}): Router {
  const app = createRouter();
  // Only what holds for every request is here; what a route family needs (body limits, JSON
  // only, authentication, idempotency, rate buckets) comes with its routes — the operations'
  // from http/operations.ts, MCP's, OAuth's and the pages' from their own registrations.
  app.onError(handleError(deps.log));
  app.use("*", requestContext(deps.log, deps.ids));
  app.use("*", observeRequests(deps.events));
  app.use("*", errorEnvelope);
  app.use("*", refuseNulInUrl);
  app.use("*", keyRate(deps));
  app.use("*", keyGuesses(deps));

  const mounted = [
    systemFeature(deps),
    walletFeature(deps),
    adminFeature(deps),
    filesFeature(deps),
    ...features,
    workerApiFeature(deps),
  ];
  const kinds = features.flatMap((f) => (f.kind ? [f.kind] : []));
  const operations = mounted.flatMap((f) => [
    ...(f.operations ?? []),
    ...(f.operationsOver?.(kinds) ?? []),
  ]);
  const ctx: RouteContext = {
    queues: features.flatMap((f) => f.queues ?? []),
    operations,
    kinds,
    formTargets: () => mounted.flatMap((f) => f.formTargets?.() ?? []),
    isReady: opts.isReady ?? (() => true),
    ...(opts.workSource ? { workSource: opts.workSource } : {}),
  };
  mountOperations(app, operations, deps, kinds);
  for (const feature of mounted) feature.routes?.(app, ctx);

  installFallbacks(app);
  return app;
}

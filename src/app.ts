/**
 * buildApp(deps): the whole HTTP surface — middleware, error handling and every route module.
 * No I/O happens here beyond what the routes do per request, so tests call it in-process.
 */
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./domain/errors.js";
import { JSON_BODY_MAX_BYTES } from "./domain/limits.js";
import { handleError } from "./http/errors.js";
import { installFallbacks } from "./http/fallbacks.js";
import { idempotency } from "./http/middleware/idempotency.js";
import { jsonBodiesOnly } from "./http/middleware/json-only.js";
import { requestContext } from "./http/middleware/request-context.js";
import { createRouter, type Router } from "./http/router.js";
import { registerCreditWallet } from "./http/routes/admin/credit-wallet.js";
import { registerPauseWallet } from "./http/routes/admin/pause-wallet.js";
import { registerReconcile } from "./http/routes/admin/reconcile.js";
import { registerSystemRoutes } from "./http/routes/system.js";
import { registerCreateKey } from "./http/routes/wallet/create-key.js";
import { registerCreateWallet } from "./http/routes/wallet/create-wallet.js";
import { registerGetWallet } from "./http/routes/wallet/get-wallet.js";
import { registerListKeys } from "./http/routes/wallet/list-keys.js";
import { registerRevokeKey } from "./http/routes/wallet/revoke-key.js";
import { registerWorkerApi } from "./http/routes/worker/index.js";
import type { Feature, Platform } from "./platform.js";

/** What the routes need; the Platform satisfies it. */
export type AppDeps = Platform;

export interface BuildOptions {
  isReady?: () => boolean;
  /** Path prefixes whose bodies are streamed uploads, exempt from the JSON body rules. */
  rawBodyPrefixes?: string[];
}

export function buildApp(deps: AppDeps, features: Feature[] = [], opts: BuildOptions = {}): Router {
  const app = createRouter();
  const rawPrefixes = ["/files/", ...(opts.rawBodyPrefixes ?? [])];
  const isRaw = (path: string) => rawPrefixes.some((p) => path.startsWith(p));
  const limit = bodyLimit({
    maxSize: JSON_BODY_MAX_BYTES,
    onError: () => {
      throw new ApiError(
        413,
        `The request body is too large; JSON bodies are limited to ${JSON_BODY_MAX_BYTES / 1024} KB.`,
      );
    },
  });

  app.onError(handleError(deps.log));
  app.use("*", requestContext(deps.log, deps.ids));
  app.use("*", async (c, next) => (isRaw(c.req.path) ? next() : limit(c, next)));
  app.use("*", async (c, next) => (isRaw(c.req.path) ? next() : jsonBodiesOnly(c, next)));
  const idem = idempotency(deps);
  app.use("*", async (c, next) => (isRaw(c.req.path) ? next() : idem(c, next)));

  registerSystemRoutes(app, deps, opts.isReady ?? (() => true));
  registerCreateWallet(app, deps);
  registerGetWallet(app, deps);
  registerCreateKey(app, deps);
  registerListKeys(app, deps);
  registerRevokeKey(app, deps);
  registerCreditWallet(app, deps, deps.adminToken);
  registerPauseWallet(app, deps, deps.adminToken);
  registerReconcile(app, deps, deps.adminToken);

  // Signed upload/download URLs of the local-disk store are served by kinora itself.
  if ("routes" in deps.storage) app.route("/files", deps.storage.routes());
  for (const feature of features) feature.routes?.(app);
  // The HTTP worker API serves the job queues of every feature (remote `kinora worker`).
  registerWorkerApi(
    app,
    deps,
    features.flatMap((f) => f.queues ?? []),
  );

  installFallbacks(app);
  return app;
}

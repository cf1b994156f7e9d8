/**
 * The routes every kinora server has — health, wallets and keys, operator actions, local file
 * links and the worker API — as features, wired exactly like restore, clips and payments.
 * buildApp always mounts them: system, wallet, admin and files first, the worker API last
 * (it serves the job queues every other feature declared).
 */

import type { Feature, Platform } from "../feature.js";
import { registerSystemRoutes } from "../http/routes/system.js";
import { registerWorkerApi } from "../http/routes/worker/index.js";
import { adminOperations } from "../operations/admin.js";
import { walletOperations } from "../operations/wallet.js";
import { createUploadGuard } from "../services/upload-guard.js";

/** GET /healthz, /openapi.json, /docs and the home page. */
export const systemFeature = (p: Platform): Feature => ({
  name: "system",
  routes: (app, ctx) => registerSystemRoutes(app, p, ctx.isReady),
});

/** POST /wallet, GET /wallet, and the agent keys. */
export const walletFeature = (p: Platform): Feature => ({
  name: "wallet",
  operations: walletOperations(p),
});

/** The operator's credit, pause and reconcile (ADMIN_TOKEN). */
export const adminFeature = (p: Platform): Feature => ({
  name: "admin",
  operations: adminOperations(p),
});

/**
 * Signed upload and download links of local-disk storage (S3 serves its own); uploads follow
 * the rules of the kinds whose queues the features declared.
 */
export const filesFeature = (p: Platform): Feature => ({
  name: "files",
  routes(app, ctx) {
    const storage = p.storage;
    if ("routes" in storage) {
      const kinds = ctx.queues.map((q) => q.definition);
      app.route("/files", storage.routes({ uploadGuard: createUploadGuard({ db: p.db, kinds }) }));
    }
  },
});

/** The HTTP worker API over every feature's job queues (WORKER_TOKEN). */
export const workerApiFeature = (p: Platform): Feature => ({
  name: "worker-api",
  routes: (app, ctx) => registerWorkerApi(app, p, ctx.queues, ctx.workSource),
});

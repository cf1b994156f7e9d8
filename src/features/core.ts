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
import { startPeriodic } from "../services/periodic.js";
import { createUploadGuard } from "../services/upload-guard.js";
import { sweepUploads } from "../services/uploads/sweep.js";
import type { UploadGuard } from "../storage/blob-store.js";

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

/** How often uploads in parts are swept (expired or unwanted ones aborted). */
const UPLOAD_SWEEP_MS = 60_000;

/**
 * Signed upload and download links of local-disk storage (S3 serves its own); uploads follow
 * the rules of the kinds whose queues the features declared. Its task sweeps uploads in parts
 * on either store: an expired one, or one whose job no longer takes its file, is aborted.
 */
export const filesFeature = (p: Platform): Feature => {
  let guard: UploadGuard | undefined;
  return {
    name: "files",
    routes(app, ctx) {
      guard = createUploadGuard({ db: p.db, kinds: ctx.queues.map((q) => q.definition) });
      const storage = p.storage;
      if ("routes" in storage) app.route("/files", storage.routes({ uploadGuard: guard }));
    },
    async start() {
      const deps = { ...p, retentionHours: p.config.retentionHours };
      const pass = async () => {
        const swept = await sweepUploads(deps, guard);
        if (swept.expired + swept.jobEnded + swept.reaborted + swept.settled > 0) {
          p.log.info("uploads in parts swept", { ...swept });
        }
      };
      return startPeriodic(UPLOAD_SWEEP_MS, pass, p.log, "sweep of uploads in parts");
    },
  };
};

/** The HTTP worker API over every feature's job queues (WORKER_TOKEN). */
export const workerApiFeature = (p: Platform): Feature => ({
  name: "worker-api",
  routes: (app, ctx) => registerWorkerApi(app, p, ctx.queues, ctx.workSource),
});

/**
 * The handlers of a restore's upload in parts (api/upload-contracts.ts): each maps its input
 * onto one service call of ./parts.ts. Listed with the kind's other operations (operations.ts).
 */
import { implement } from "../../../api/operation.js";
import { notFound } from "../../../domain/errors.js";
import * as uc from "../api/upload-contracts.js";
import type { RestoreDeps } from "./deps.js";
import {
  completeRestoreParts,
  reportRestorePart,
  restorePartLinks,
  restoreUploadState,
} from "./parts.js";
import { findJob } from "./store.js";
import { jobView } from "./views.js";

const links = implement(uc.getRestorePartLinks, async (p: RestoreDeps, a, ctx) =>
  restorePartLinks(p, ctx.principal, a.job_id, a.parts),
);

const report = implement(uc.reportRestorePart, async (p: RestoreDeps, a, ctx) =>
  reportRestorePart(
    p,
    ctx.principal,
    a.job_id,
    {
      partNumber: a.part_number,
      etag: a.etag,
      checksum: a.checksum,
      sha256: a.sha256,
    },
    { brief: a.brief },
  ),
);

const state = implement(uc.getRestoreUpload, async (p: RestoreDeps, a, ctx) =>
  restoreUploadState(p, ctx.principal, a.job_id),
);

const complete = implement(uc.completeRestoreUpload, async (p: RestoreDeps, a, ctx) => {
  await completeRestoreParts(p, ctx.principal, a.job_id);
  const row = await findJob(p.db, a.job_id);
  if (!row) throw notFound("Restore job");
  return { job: await jobView(p, row) };
});

/** The upload-in-parts operations, not yet bound to the restore services. */
export const RESTORE_UPLOAD_OPERATIONS = [links, report, state, complete];

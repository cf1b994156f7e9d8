/** cancel_job: one tool for both kinds, by the id's prefix (rj_… restore, clip_… clip). */
import { z } from "@hono/zod-openapi";
import { Clip } from "../../api/clips.js";
import { RestoreJob } from "../../api/restore.js";
import { Wallet } from "../../api/schemas.js";
import { notFound } from "../../domain/errors.js";
import { cancelClip } from "../../services/clips/commands.js";
import { cancelRestoreJob } from "../../services/restore/commands.js";
import { freshPrincipal, walletView } from "../../services/wallets.js";
import { JobId } from "../schema.js";
import { defineTool, reply } from "../tool.js";

export const cancelJob = defineTool({
  name: "cancel_job",
  title: "Cancel a job whose file never arrived",
  description:
    "Refunds at once, to the balance and to this key's allowance. Cancels a restore (rj_…) or a clip (clip_…) whose file or image was never uploaded; a job already running cannot be cancelled. Cancelling a cancelled job returns it unchanged.",
  input: z.object({ job_id: JobId }).strict(),
  output: z.object({ job: z.union([RestoreJob, Clip]), wallet: Wallet }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(ctx, a) {
    if (a.job_id.startsWith("rj_")) {
      return reply(await cancelRestoreJob(ctx.platform, ctx.principal, a.job_id));
    }
    if (a.job_id.startsWith("clip_")) {
      const job = await cancelClip(ctx.clips, ctx.principal, a.job_id);
      return reply({ job, wallet: await walletView(ctx.platform, freshPrincipal(ctx.principal)) });
    }
    throw notFound("Job (ids start with rj_ for restores and clip_ for clips)");
  },
});

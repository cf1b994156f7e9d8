/** Cloud restore: create_restore, start_restore, get_restore — the REST services, as tools. */
import { z } from "@hono/zod-openapi";
import { CreateBody, CreatedRestore, JobEnvelope, RestoreJob } from "../../api/restore.js";
import { openRestoreCheckout } from "../../services/payments/checkouts.js";
import { getOwnedRestoreJob, ownedJob, startRestoreJob } from "../../services/restore/commands.js";
import { createRestoreJob } from "../../services/restore/create.js";
import { IdempotencyKeyArg, JobId, WaitSeconds } from "../schema.js";
import { defineTool, READ_ONLY, reply } from "../tool.js";

export const createRestore = defineTool({
  name: "create_restore",
  title: "Create a cloud restore",
  description:
    "Costs from $2.99, by length and quality (quote_restore gives the exact price; state it and get the owner's agreement first unless they already agreed). Declare the video's duration_sec, filename, content_type and size (bytes, up to 2 GB). Paid from the balance now; the answer has upload_url and upload_headers: PUT the file there with exactly those headers, then call start_restore. With pay_with \"checkout\" the owner pays this one job by card instead (start_restore then returns the checkout link).",
  input: CreateBody.extend({ idempotency_key: IdempotencyKeyArg }),
  output: CreatedRestore,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  spends: true,
  run: async (ctx, a) =>
    reply(
      await createRestoreJob(ctx.platform, ctx.principal, {
        durationSec: a.duration_sec,
        quality: a.quality,
        width: a.width,
        height: a.height,
        filename: a.filename,
        contentType: a.content_type,
        sizeBytes: a.size,
        email: a.email,
        payWith: a.pay_with,
      }),
    ),
});

export const startRestore = defineTool({
  name: "start_restore",
  title: "Start a restore",
  description:
    'No further charge (paid at create_restore). Once the file is uploaded, starts the restore (status processing); starting a started job returns it unchanged. For a job created with pay_with "checkout" it returns checkout_url instead: give it to the owner; the restore starts once paid. Then follow it with get_restore.',
  input: z.object({ job_id: JobId }).strict(),
  output: z.object({
    job: RestoreJob,
    checkout_url: z.string().optional().openapi({
      description: "For a job paid by checkout: the link for the owner; it starts once paid.",
    }),
  }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(ctx, a) {
    const row = await ownedJob(ctx.platform, ctx.principal, a.job_id);
    if (row.status === "pending_payment") {
      const opened = await openRestoreCheckout(ctx.payments, a.job_id);
      const { job } = await getOwnedRestoreJob(ctx.platform, ctx.principal, a.job_id);
      return reply({ job, checkout_url: opened.checkout_url });
    }
    return reply(await startRestoreJob(ctx.platform, ctx.principal, a.job_id));
  },
});

export const getRestore = defineTool({
  name: "get_restore",
  title: "Follow a restore",
  description:
    "Free. The restore job: status (processing → done, or failed/refunded with the money back), progress 0..1 and, once done, download_url (valid 1 hour, fresh on every call; results are deleted after the retention period, typically 48 hours). wait_seconds (0–25) returns as soon as the job changes, so poll with it.",
  input: z.object({ job_id: JobId, wait_seconds: WaitSeconds }).strict(),
  output: JobEnvelope,
  annotations: READ_ONLY,
  run: async (ctx, a) =>
    reply(
      await getOwnedRestoreJob(ctx.platform, ctx.principal, a.job_id, {
        waitMs: (a.wait_seconds ?? 0) * 1000,
        signal: ctx.signal,
      }),
    ),
});

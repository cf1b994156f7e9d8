/**
 * Tools an assistant gets as one call where REST has several: every price at once, and one
 * cancel for either kind of job. They have no REST binding; their parts are REST operations.
 */
import { z } from "@hono/zod-openapi";
import { Clip, MotionConfig } from "../clips.js";
import { defineContract, READ_ONLY } from "../operation.js";
import { PriceTable, RestoreJob } from "../restore.js";
import { JobIdField, Wallet } from "../schemas.js";
import { startClip } from "./clips.js";
import { startOrPayRestore } from "./restore.js";

export const getPrices = defineContract({
  id: "getPrices",
  auth: "key",
  input: z.object({}).strict(),
  output: z.object({ restore: PriceTable, clips: MotionConfig }),
  errors: [],
  mcp: {
    name: "get_prices",
    title: "Prices and limits",
    description:
      "Free. Current prices and limits: cloud restore (Standard/faithful from $2.99, Enhanced from $4.99, Studio Max/enhanced_max from $8.99 for up to 5 minutes, then per started minute; ×1.5 above 1920×1080), motion clips ($0.59 at 480p, $0.99 at 720p, 5 seconds), top-up ranges, image types and the content rule's refusal codes. Use quote_restore for a video's exact price.",
    annotations: READ_ONLY,
  },
});

export const cancelJob = defineContract({
  id: "cancelJob",
  auth: "key",
  input: z.object({ job_id: JobIdField("rj_5pX0c1Hq3GvJ2Yb8Lw9RzA", 120) }).strict(),
  output: z.object({ job: z.union([RestoreJob, Clip]), wallet: Wallet }),
  errors: ["not_found", "already_uploaded", "paid_by_checkout", "wrong_state"],
  remedies: {
    already_uploaded: (refer, a) => {
      const id = String(a.job_id);
      return `Start it with ${refer(id.startsWith("clip_") ? startClip : startOrPayRestore, { job_id: id })} instead.`;
    },
  },
  mcp: {
    name: "cancel_job",
    title: "Cancel a job whose file never arrived",
    description:
      "Refunds at once, to the balance and to this key's allowance. Cancels a restore (rj_…) or a clip (clip_…) whose file or image was never uploaded; a job already running cannot be cancelled. Cancelling a cancelled job returns it unchanged.",
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
});

/**
 * Tools an assistant gets as one call where REST has several: every price at once, and one
 * cancel for either kind of job. They have no REST binding; their parts are REST operations.
 */
import { z } from "@hono/zod-openapi";
import { startClip } from "../../kinds/clips/api/contracts.js";
import { Clip, MotionConfig } from "../../kinds/clips/api/schemas.js";
import { PriceTable, RestoreJob } from "../../kinds/restore/api/schemas.js";
import { defineContract, READ_ONLY } from "../operation.js";
import { JobIdField, Wallet } from "../schemas.js";

/** MCP only: every price and limit in one call (restore table and clip configuration). */
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
      "Free. Every price and limit: restore qualities (what each does and costs), clips ($0.59 / $0.99), top-up ranges, image types, refusal codes.",
    annotations: READ_ONLY,
  },
});

/** MCP only: cancel a restore or a clip by its id, whichever kind it is. */
export const cancelJob = defineContract({
  id: "cancelJob",
  auth: "key",
  input: z.object({ job_id: JobIdField("rj_5pX0c1Hq3GvJ2Yb8Lw9RzA", 120) }).strict(),
  output: z.object({ job: z.union([RestoreJob, Clip]), wallet: Wallet }),
  errors: ["not_found", "already_uploaded", "paid_by_checkout", "wrong_state"],
  remedies: {
    // Only a clip whose image arrived is refused so; a restore not yet started can be cancelled.
    already_uploaded: (refer, a) =>
      `Start it with ${refer(startClip, { job_id: String(a.job_id) })} instead.`,
  },
  mcp: {
    name: "cancel_job",
    title: "Cancel a job that has not started",
    description:
      "Refunds at once, to the balance and this key's allowance. Cancels a restore not yet started or a clip whose image never arrived; a running job cannot be. Again: unchanged.",
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
});

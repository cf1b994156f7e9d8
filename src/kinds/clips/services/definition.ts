/**
 * Motion clips as a job kind: `queued` waits for a worker, `processing` runs under a lease.
 * The clip image is deleted as soon as the clip is made or has ended (SPEC retention rule);
 * a refused image ends the clip `refused` with its refusal code.
 */
import { type Selectable, sql } from "kysely";
import { z } from "zod";
import { withoutRetryPromise } from "../../../domain/job-lifecycle/messages.js";
import type { JobDefinition, JobEngineDeps } from "../../../jobs/definition.js";
import { OUTPUT_TOKEN_HEADER, signOutputToken } from "../../../jobs/output-token.js";
import { refundToLedger } from "../../../services/ledger.js";
import { type JobFileLayout, jobFileKey } from "../../../storage/keys.js";
import {
  CLIP_DEFAULT_RUN_RATES,
  CLIP_DOWNLOAD_URL_SEC,
  CLIP_IMAGE_MAX_BYTES,
  CLIP_OUTPUT_MAX_BYTES,
  CLIP_PRICE_CENTS,
  CLIP_SIZES,
  CLIP_UPLOAD_WINDOW_SEC,
} from "../rules/rules.js";
import { CLIP_FINAL, CLIP_MOVES, CLIP_STATUSES } from "../rules/transitions.js";
import type { ClipsTable } from "./tables.js";

/** A row of the clips table. */
export type ClipRow = Selectable<ClipsTable>;

/** What a clip worker gets with each clip (the executor receives them parsed). */
export const ClipWorkParams = z.object({
  prompt: z.string(),
  size: z.enum(CLIP_SIZES),
  seconds: z.number().positive(),
  loop: z.boolean(),
  seed: z.number().int(),
  contentType: z.string(),
  maxImageBytes: z.number().int().positive(),
});
/** ClipWorkParams, parsed. */
export type ClipWorkParams = z.infer<typeof ClipWorkParams>;

/** Clip files: `clips/clip_…/image` (the caller's image) and `…/output` (the clip). */
const CLIP_FILES: JobFileLayout = {
  area: "clips",
  idPattern: /^clip_[A-Za-z0-9_-]{1,100}$/,
  files: ["image", "output"],
};

/** Where the source image of clip `clipId` lives (deleted once the clip is made). */
export const clipImageKey = (clipId: string) => jobFileKey(CLIP_FILES, clipId, "image");
/** Where the generated video of clip `clipId` lives. */
export const clipOutputKey = (clipId: string) => jobFileKey(CLIP_FILES, clipId, "output");

async function workItem(row: ClipRow, deps: JobEngineDeps) {
  const lifetimeSec = CLIP_DOWNLOAD_URL_SEC;
  // The same output path as restores: a signed ticket request, then a PUT straight to storage.
  const token = signOutputToken(deps.signer, {
    key: clipOutputKey(row.id),
    jobId: row.id,
    maxBytes: CLIP_OUTPUT_MAX_BYTES,
    expSec: Math.floor(deps.clock().getTime() / 1000) + lifetimeSec,
  });
  return {
    inputUrl: await deps.storage.presignDownload(row.image_key, { expiresInSec: lifetimeSec }),
    outputUrl: `${deps.publicUrl}/worker/output-ticket`,
    outputHeaders: { [OUTPUT_TOKEN_HEADER]: token },
    params: {
      prompt: row.prompt,
      size: row.size,
      seconds: row.seconds,
      loop: row.loop,
      seed: Number(row.seed),
      contentType: row.content_type,
      maxImageBytes: CLIP_IMAGE_MAX_BYTES,
    },
  };
}

/** The clip kind's job definition. */
export const clipJobs: JobDefinition<ClipRow, ClipWorkParams> = {
  kind: "clip",
  table: "clips",
  noun: "clip",
  cheapestCents: Math.min(...Object.values(CLIP_PRICE_CENTS)),
  statuses: CLIP_STATUSES,
  final: CLIP_FINAL,
  moves: CLIP_MOVES,
  waiting: "queued",
  running: "processing",
  params: ClipWorkParams,
  workItem,
  fileLayout: CLIP_FILES,
  // The caller's one-shot image link lives while the clip waits for it; a worker's output link
  // while the clip is processing (a retry may overwrite what a failed attempt stored).
  uploads: {
    image: { statuses: ["awaiting_upload"], once: true },
    output: { statuses: ["processing"], once: false },
  },
  refund: refundToLedger,
  // Clips are measured in seconds of clip per size.
  estimate: {
    classSql: (t) => sql`${sql.ref(`${t}.size`)}`,
    amountSql: (t) => sql`${sql.ref(`${t}.seconds`)}`,
    doneAmountSql: (t) => sql`${sql.ref(`${t}.seconds`)}`,
    succeededSql: (t) => sql`${sql.ref(`${t}.output_key`)} IS NOT NULL`,
    work: (row) => ({ workClass: row.size, amount: row.seconds }),
    defaults: CLIP_DEFAULT_RUN_RATES,
  },
  variant: (row) => row.size,
  async finish(row, result, deps) {
    const outputKey = clipOutputKey(row.id);
    const stored = await deps.storage.head(outputKey);
    if (!stored)
      return { retry: "The finished clip did not reach storage; the clip will be retried." };
    return { set: { output_key: outputKey, output_bytes: stored.sizeBytes || result.outputBytes } };
  },
  end: (failure) =>
    failure.kind === "refused"
      ? { move: "refuse", set: { refusal_code: failure.code ?? "sexual" } }
      : { move: "fail", set: { refusal_code: null } },
  // The last attempt's message, without its (now false) promise of a retry.
  exhausted: (_attempts, last) => withoutRetryPromise(last),
  workerLost: () => "The clip engine stopped responding on every attempt; the clip was refunded.",
  files: (row) => [row.image_key, clipOutputKey(row.id)],
  // The image goes once the clip is made (SPEC); a clip that ended without being made also
  // loses any result an earlier attempt stored, which nobody can download.
  filesAfterEnd: (row, outcome) =>
    outcome === "done" ? [row.image_key] : [row.image_key, clipOutputKey(row.id)],
  retention(deps) {
    return [
      {
        statuses: ["awaiting_upload"],
        due: { column: "upload_expires_at", before: (now) => now },
        move: "uploadExpired",
        set: (_row, now) => ({
          error: `The image was not uploaded and started within ${CLIP_UPLOAD_WINDOW_SEC / 60} minutes; the price was refunded.`,
          finished_at: now,
        }),
      },
      {
        statuses: ["done"],
        due: { column: "expires_at", before: (now) => now },
        move: "retentionExpired",
        set: () => ({
          error: `The clip's files were deleted after the ${deps.retentionHours}-hour retention period.`,
        }),
      },
      // Images that arrived late for clips that ended without them (their links have lapsed).
      {
        statuses: ["cancelled", "expired", "failed", "refused"],
        due: { column: "upload_expires_at", before: (now) => now },
      },
    ];
  },
};

/**
 * Cloud restore as a job kind: `processing` without a lease waits for a worker, with one it
 * runs. A balance-paid job is refunded to the balance and key allowance; a checkout-paid one
 * through the card-refund outbox (written in the same transaction). A video_url job's worker
 * fetches the file into storage first; every worker notes the measured length before restoring,
 * and what it does not cost goes back then (measurement.ts).
 */
import { type Selectable, sql } from "kysely";
import { z } from "zod";
import { FADE_HINTS } from "../../../domain/fade.js";
import type { Db, JobDefinition, JobEngineDeps, RefundEvents } from "../../../jobs/definition.js";
import { OUTPUT_TOKEN_HEADER, signOutputToken } from "../../../jobs/output-token.js";
import { refundJob } from "../../../services/ledger.js";
import { type JobFileLayout, jobFileKey } from "../../../storage/keys.js";
import { restoreJobErrorCode } from "../rules/job-errors.js";
import { RESTORE_FETCH, RESTORE_WORKER_URL_SEC, restoreOutputMaxBytes } from "../rules/limits.js";
import { PRICE_TABLE, RESTORE_DEFAULT_RUN_RATES, RESTORE_QUALITIES } from "../rules/pricing.js";
import {
  RESTORE_FINAL,
  RESTORE_MESSAGES,
  RESTORE_MOVES,
  RESTORE_STATUSES,
} from "../rules/transitions.js";
import { applyMeasurement } from "./measurement.js";
import type { RestoreJobsTable } from "./tables.js";

/** A row of the restore_jobs table. */
export type RestoreJobRow = Selectable<RestoreJobsTable>;

/** What a restore worker gets with each job (the executor receives them parsed). */
export const RestoreWorkParams = z.object({
  quality: z.enum(RESTORE_QUALITIES),
  /** What the customer said of the levels; absent (a server before it) means auto. */
  fade: z.enum(FADE_HINTS).optional(),
  declaredDurationSec: z.number().positive(),
  sizeBytes: z.number().int().min(0),
  filename: z.string(),
  contentType: z.string(),
  /**
   * A video_url job whose file is not in storage yet: the worker fetches `url` (at most
   * `maxBytes`; exactly `expectBytes` when declared) and stores it as the input by a ticket
   * from `outputUrl` with `storeHeaders`. `declaredType` is used when the server names only a
   * generic binary type.
   */
  source: z
    .object({
      url: z.string(),
      maxBytes: z.number().int().positive(),
      expectBytes: z.number().int().positive().nullable(),
      declaredType: z.string().nullable(),
      storeHeaders: z.record(z.string(), z.string()),
    })
    .optional(),
  /**
   * Where the worker stores the before/after still of a done restore (headers for `outputUrl`,
   * naming the job's `still` file); absent from servers that want none.
   */
  still: z.object({ headers: z.record(z.string(), z.string()) }).optional(),
  /**
   * Where the worker stores the two frames of the still at the result's own size (`before`,
   * `after`: headers for `outputUrl`), for the console's full-size comparison; absent from
   * servers that want none (an older worker ignores it and makes the still only).
   */
  frames: z
    .object({
      before: z.object({ headers: z.record(z.string(), z.string()) }),
      after: z.object({ headers: z.record(z.string(), z.string()) }),
    })
    .optional(),
});
/** RestoreWorkParams, parsed. */
export type RestoreWorkParams = z.infer<typeof RestoreWorkParams>;

/**
 * Restore files: `restore/rj_…/input` (the caller's video), `…/output` (the result), `…/still`
 * (a small JPEG of one frame before and after, for the owner's console) and `…/before`,
 * `…/after` (that frame at the result's own size, for the console's full-size comparison).
 */
const RESTORE_FILES: JobFileLayout = {
  area: "restore",
  idPattern: /^rj_[A-Za-z0-9_-]{1,100}$/,
  files: ["input", "output", "still", "before", "after"],
};

/** Where the video a caller uploads for restore job `jobId` lives. */
export const restoreInputKey = (jobId: string) => jobFileKey(RESTORE_FILES, jobId, "input");
/** Where the restored video of job `jobId` lives. */
export const restoreOutputKey = (jobId: string) => jobFileKey(RESTORE_FILES, jobId, "output");
/** Where the before/after still of job `jobId` lives (deleted with the job's other files). */
export const restoreStillKey = (jobId: string) => jobFileKey(RESTORE_FILES, jobId, "still");
/** The most a still may weigh: a 480 px wide JPEG is tens of kilobytes. */
const STILL_MAX_BYTES = 2 * 1024 * 1024;
/** Where a done restore's full-size frame `which` lives (deleted with the job's other files). */
export const restoreFrameKey = (jobId: string, which: "before" | "after") =>
  jobFileKey(RESTORE_FILES, jobId, which);
/** The most one full-size frame may weigh: a near-lossless 4K JPEG is a few megabytes. */
const FRAME_MAX_BYTES = 16 * 1024 * 1024;

/** Balance refund (no-op for card-paid jobs) plus the card-refund outbox row when paid by card. */
export async function refundRestore(
  db: Db,
  row: RestoreJobRow,
  reason: string,
  events?: RefundEvents,
): Promise<void> {
  await refundJob(db, row.id, reason, events);
  // amount_cents is what is left of the card payment once a measured difference went back.
  if (!row.paid_from_balance && row.payment_ref !== null) {
    await db
      .insertInto("restore_card_refunds")
      .values({ job_id: row.id, kind: "refund", amount_cents: row.amount_cents, reason })
      .onConflict((oc) => oc.columns(["job_id", "kind"]).doNothing())
      .execute();
  }
}

/** The restore's progress once its analysis handed it to segments (they share the rest). */
export const SEGMENTED_PROGRESS = 0.1;

/** The job kind of a segmented restore's work units (src/kinds/restore-segments). */
export const RESTORE_SEGMENT_KIND = "restoreseg";

/**
 * A long video's attempt ended with the analysis (`meta.segmented`: the plan and the cut
 * plan): the job is handed to its segments, which any worker restores; the join ends it.
 */
function handOffToSegments(row: RestoreJobRow, segmented: unknown) {
  // cast: meta.segmented is what this kind's own executor reported, an object with both plans
  const { plan, cut } = segmented as { plan: unknown; cut: unknown };
  return {
    handOff: {
      childKind: RESTORE_SEGMENT_KIND,
      units: {
        quality: row.quality,
        plan,
        cut,
        inputKey: row.input_key,
        outputKey: restoreOutputKey(row.id),
        // The join makes the before/after still as a one-piece restore's worker does.
        stillKey: restoreStillKey(row.id),
        frameKeys: {
          before: restoreFrameKey(row.id, "before"),
          after: restoreFrameKey(row.id, "after"),
        },
        outputMaxBytes: restoreOutputMaxBytes(row.duration_sec),
        urlSec: RESTORE_WORKER_URL_SEC,
        maxAttempts: row.max_attempts,
      },
      set: { progress: SEGMENTED_PROGRESS },
    },
  };
}

/** The type a video_url job was created with before its file arrived: not known yet. */
export const UNKNOWN_VIDEO_TYPE = "application/octet-stream";

/** A video_url job's fetch instructions while its file is not in storage; else undefined. */
async function sourceOf(row: RestoreJobRow, deps: JobEngineDeps, expSec: number) {
  if (row.source_url === null) return { stored: null, source: undefined };
  const stored = await deps.storage.head(row.input_key);
  if (stored) return { stored, source: undefined };
  const declared = row.size_bytes === null ? null : Number(row.size_bytes);
  const maxBytes = declared ?? RESTORE_FETCH.maxBytes;
  const token = signOutputToken(deps.signer, {
    key: row.input_key,
    jobId: row.id,
    maxBytes,
    expSec,
  });
  return {
    stored: null,
    source: {
      url: row.source_url,
      maxBytes,
      expectBytes: declared,
      declaredType: row.content_type === UNKNOWN_VIDEO_TYPE ? null : row.content_type,
      storeHeaders: { [OUTPUT_TOKEN_HEADER]: token },
    },
  };
}

async function workItem(row: RestoreJobRow, deps: JobEngineDeps) {
  const expSec = Math.floor(deps.clock().getTime() / 1000) + RESTORE_WORKER_URL_SEC;
  const token = signOutputToken(deps.signer, {
    key: restoreOutputKey(row.id),
    jobId: row.id,
    maxBytes: restoreOutputMaxBytes(row.duration_sec),
    expSec,
  });
  const { stored, source } = await sourceOf(row, deps, expSec);
  const stillToken = signOutputToken(deps.signer, {
    key: restoreStillKey(row.id),
    jobId: row.id,
    maxBytes: STILL_MAX_BYTES,
    expSec,
  });
  const frame = (which: "before" | "after") => ({
    headers: {
      [OUTPUT_TOKEN_HEADER]: signOutputToken(deps.signer, {
        key: restoreFrameKey(row.id, which),
        jobId: row.id,
        maxBytes: FRAME_MAX_BYTES,
        expSec,
      }),
    },
  });
  const params: RestoreWorkParams = {
    quality: row.quality,
    // Sent only when the customer said something: "auto" is what its absence means.
    ...(row.fade !== "auto" ? { fade: row.fade } : {}),
    declaredDurationSec: row.duration_sec,
    // A fetched file is read back as stored (an earlier attempt may have fetched it).
    sizeBytes: stored?.sizeBytes ?? Number(row.size_bytes ?? RESTORE_FETCH.maxBytes),
    filename: row.filename,
    contentType: stored?.contentType ?? row.content_type,
    ...(source ? { source } : {}),
    still: { headers: { [OUTPUT_TOKEN_HEADER]: stillToken } },
    frames: { before: frame("before"), after: frame("after") },
  };
  return {
    inputUrl: await deps.storage.presignDownload(row.input_key, {
      expiresInSec: RESTORE_WORKER_URL_SEC,
    }),
    outputUrl: `${deps.publicUrl}/worker/output-ticket`,
    outputHeaders: { [OUTPUT_TOKEN_HEADER]: token },
    params,
  };
}

/** The restore kind's job definition. */
export const restoreJobs: JobDefinition<RestoreJobRow, RestoreWorkParams> = {
  kind: "restore",
  table: "restore_jobs",
  noun: "restore job",
  cheapestCents: Math.min(...Object.values(PRICE_TABLE).map((row) => row.baseCents)),
  statuses: RESTORE_STATUSES,
  final: RESTORE_FINAL,
  moves: RESTORE_MOVES,
  waiting: "processing",
  running: "processing",
  params: RestoreWorkParams,
  workItem,
  fileLayout: RESTORE_FILES,
  // A caller's link is one-shot and lives while the job waits for its video; a worker's output
  // link while the job is processing (a retry may overwrite what a failed attempt stored). A
  // video_url job's worker stores the fetched input while processing: one-shot too, so nothing
  // replaces an input that arrived (an uploaded job's, or an earlier attempt's fetch).
  uploads: {
    input: {
      statuses: ["awaiting_upload", "pending_payment"],
      once: true,
      fetched: { statuses: ["processing"], sourceColumn: "source_url" },
    },
    output: { statuses: ["processing"], once: false },
    still: { statuses: ["processing"], once: false },
    before: { statuses: ["processing"], once: false },
    after: { statuses: ["processing"], once: false },
  },
  refund: refundRestore,
  // Restores are measured in seconds of video per quality (the real length once known).
  estimate: {
    classSql: (t) => sql`${sql.ref(`${t}.quality`)}`,
    amountSql: (t) => sql`${sql.ref(`${t}.duration_sec`)}`,
    doneAmountSql: (t) =>
      sql`COALESCE(${sql.ref(`${t}.measured_duration_sec`)}, ${sql.ref(`${t}.duration_sec`)})`,
    succeededSql: (t) => sql`${sql.ref(`${t}.output_key`)} IS NOT NULL`,
    work: (row) => ({ workClass: row.quality, amount: row.duration_sec }),
    defaults: RESTORE_DEFAULT_RUN_RATES,
  },
  variant: (row) => row.quality,
  noted: async (row, note, deps) => {
    await applyMeasurement(deps, row, note);
  },
  async finish(row, result, deps) {
    const segmented = result.meta.segmented;
    if (typeof segmented === "object" && segmented !== null) {
      const measured = result.meta.measuredDurationSec;
      if (row.measured_duration_sec === null && typeof measured === "number") {
        await applyMeasurement(deps, row, { measuredDurationSec: measured });
      }
      return handOffToSegments(row, segmented);
    }
    // A worker's word is not enough: `done` promises a download, so the result must be stored.
    const outputKey = restoreOutputKey(row.id);
    if (!(await deps.storage.head(outputKey))) return { retry: RESTORE_MESSAGES.outputMissing };
    // The measured price stands by the time the job is done, even if the note never arrived.
    const measured = result.meta.measuredDurationSec;
    if (row.measured_duration_sec === null && typeof measured === "number") {
      await applyMeasurement(deps, row, { measuredDurationSec: measured });
    }
    return { set: { output_key: outputKey } };
  },
  end: (failure) => ({
    move: failure.kind === "too_long" ? "refuse" : "fail",
    set: {
      error_code: restoreJobErrorCode(failure.kind === "too_long" ? "too_long" : failure.code),
    },
  }),
  exhausted: RESTORE_MESSAGES.attemptsExhausted,
  workerLost: (attempts) =>
    RESTORE_MESSAGES.attemptsExhausted(attempts, RESTORE_MESSAGES.workerLost),
  files: (row) => [
    row.input_key,
    restoreOutputKey(row.id),
    restoreStillKey(row.id),
    restoreFrameKey(row.id, "before"),
    restoreFrameKey(row.id, "after"),
  ],
  // The input is no longer needed once the result exists; after a failure it stays until
  // retention (the caller may want to see what went wrong — and a card refund may be pending).
  filesAfterEnd: (row, outcome) => (outcome === "done" ? [row.input_key] : []),
  retention(deps) {
    const now = (d: Date) => d;
    const retentionMs = deps.retentionHours * 3600_000;
    const expire = (error: string) => (row: RestoreJobRow, at: Date) => ({
      error,
      finished_at: row.finished_at ?? at,
    });
    return [
      {
        statuses: ["done"],
        due: { column: "expires_at", before: now },
        move: "retentionExpired",
        set: expire(RESTORE_MESSAGES.retention(deps.retentionHours)),
      },
      {
        statuses: ["awaiting_upload"],
        due: { column: "expires_at", before: now },
        move: "uploadExpired",
        set: expire(RESTORE_MESSAGES.uploadExpired),
      },
      {
        statuses: ["pending_payment"],
        due: { column: "expires_at", before: now },
        move: "unpaidExpired",
        set: expire(RESTORE_MESSAGES.unpaidExpired),
      },
      // Ended jobs keep their status; only their files go (done ends through retentionExpired).
      {
        statuses: RESTORE_FINAL.filter((s) => s !== "done" && s !== "expired"),
        due: { column: "finished_at", before: (d) => new Date(d.getTime() - retentionMs) },
      },
    ];
  },
};

/**
 * The preview kind as the job engine sees it. A worker gets the video (the upload, or the
 * caller's video_url fetched under the address guard), finds its most damaged few seconds,
 * restores them at every quality and stores each clip with its stills through its own ticket;
 * what it found comes back in the report and lands in `result`. A preview is free: no charge,
 * so nothing to refund. Its files go after the same retention as a restore's.
 */
import { sql } from "kysely";
import { z } from "zod";
import { FADE_HINTS } from "../../../domain/fade.js";
import type { Db, JobDefinition, JobEngineDeps } from "../../../jobs/definition.js";
import { OUTPUT_TOKEN_HEADER, signOutputToken } from "../../../jobs/output-token.js";
import { type JobFileLayout, jobFileKey } from "../../../storage/keys.js";
import {
  PREVIEW_EXCERPT_MAX_SEC,
  PREVIEW_EXCERPT_SEC,
  PREVIEW_FINAL,
  PREVIEW_MESSAGES,
  PREVIEW_MOVES,
  PREVIEW_QUALITIES,
  PREVIEW_STATUSES,
  type PreviewQuality,
} from "../rules/transitions.js";
import type { PreviewRow } from "./table.js";

/** What a preview made of one file: a clip per quality, and its stills. */
export type PreviewFile =
  | "before"
  | PreviewQuality
  | `${PreviewQuality}-after`
  | `${PreviewQuality}-pair`;

/** Every file a preview's worker stores, in the order it stores them. */
export const PREVIEW_OUTPUTS: readonly PreviewFile[] = [
  "before",
  ...PREVIEW_QUALITIES.flatMap((q) => [q, `${q}-after`, `${q}-pair`] as const),
];

/**
 * Preview files: `preview/pv_…/input` (the caller's video), `…/before` (the excerpt's middle
 * frame), and per quality the restored clip (`…/enhanced`), its frame (`…/enhanced-after`) and
 * both side by side (`…/enhanced-pair`).
 */
const PREVIEW_FILES: JobFileLayout = {
  area: "preview",
  idPattern: /^pv_[A-Za-z0-9_-]{1,100}$/,
  files: ["input", ...PREVIEW_OUTPUTS],
};

/** Where the video of preview `id` is uploaded. */
export const previewInputKey = (id: string) => jobFileKey(PREVIEW_FILES, id, "input");
/** Where file `file` of preview `id` lives. */
export const previewFileKey = (id: string, file: PreviewFile) =>
  jobFileKey(PREVIEW_FILES, id, file);

/** The most one clip of ≤ 6 s may weigh (Studio Max at 1080p is a few megabytes). */
const CLIP_MAX_BYTES = 64 * 1024 ** 2;
/** The most one still may weigh. */
const STILL_MAX_BYTES = 16 * 1024 ** 2;
/** A worker's links and tickets live this long (a preview takes a minute or two). */
const WORKER_URL_SEC = 2 * 3600;
/** A video_url is fetched at most this large (a restore's one-piece cap). */
export const PREVIEW_FETCH_MAX_BYTES = 2 * 1024 ** 3;

const Headers = z.record(z.string(), z.string());

/** What a preview worker gets (the executor receives it parsed). */
export const PreviewWorkParams = z.object({
  /** The most the upload may weigh (its declared size), or the fetch's cap. */
  sizeBytes: z.number().int().min(0),
  /** About this much is restored, never more than PREVIEW_EXCERPT_MAX_SEC. */
  excerptSec: z.number().positive().max(PREVIEW_EXCERPT_MAX_SEC),
  /** A video_url preview: the worker fetches it (public addresses only). */
  sourceUrl: z.string().nullable(),
  /** What the customer said of the levels; absent (a server before it) means auto. */
  fade: z.enum(FADE_HINTS).optional(),
  /** Each output's ticket headers for `outputUrl`, by file. */
  outputs: z.record(z.string(), Headers),
});
/** PreviewWorkParams, parsed. */
export type PreviewWorkParams = z.infer<typeof PreviewWorkParams>;

/** What a done preview found and made, as the worker reports it and the row keeps it. */
export const PreviewResult = z.object({
  /** The video's measured length. */
  duration_sec: z.number().nonnegative(),
  /** Where the excerpt starts, and how long it is (≤ 6 s). */
  start_sec: z.number().nonnegative(),
  length_sec: z.number().positive().max(PREVIEW_EXCERPT_MAX_SEC),
  /** Why there: what the analysis found worst in that excerpt, in words. */
  found: z.array(z.string()),
  qualities: z.array(
    z.object({
      quality: z.enum(PREVIEW_QUALITIES),
      /** The plan in customer words ("deinterlaced, bottom field first"). */
      words: z.array(z.string()),
      width: z.number().int().nonnegative(),
      height: z.number().int().nonnegative(),
    }),
  ),
});
/** PreviewResult, parsed. */
export type PreviewResult = z.infer<typeof PreviewResult>;

/** A preview's result, read back from its row (null until done). */
export function previewResultOf(row: Pick<PreviewRow, "result">): PreviewResult | null {
  if (row.result === null) return null;
  const parsed = PreviewResult.safeParse(JSON.parse(row.result));
  return parsed.success ? parsed.data : null;
}

async function workItem(row: PreviewRow, deps: JobEngineDeps) {
  const expSec = Math.floor(deps.clock().getTime() / 1000) + WORKER_URL_SEC;
  const ticket = (file: PreviewFile) => ({
    [OUTPUT_TOKEN_HEADER]: signOutputToken(deps.signer, {
      key: previewFileKey(row.id, file),
      jobId: row.id,
      maxBytes: PREVIEW_QUALITIES.some((q) => q === file) ? CLIP_MAX_BYTES : STILL_MAX_BYTES,
      expSec,
    }),
  });
  const outputs = Object.fromEntries(PREVIEW_OUTPUTS.map((f) => [f, ticket(f)]));
  const params: PreviewWorkParams = {
    sizeBytes: Number(row.size_bytes ?? PREVIEW_FETCH_MAX_BYTES),
    excerptSec: PREVIEW_EXCERPT_SEC,
    sourceUrl: row.source_url,
    ...(row.fade !== "auto" ? { fade: row.fade } : {}),
    outputs,
  };
  return {
    // A video_url preview has no input in storage: the worker fetches the caller's URL.
    inputUrl:
      row.source_url === null
        ? await deps.storage.presignDownload(row.input_key, { expiresInSec: WORKER_URL_SEC })
        : "",
    outputUrl: `${deps.publicUrl}/worker/output-ticket`,
    outputHeaders: ticket("before"),
    params,
  };
}

/** A preview costs nothing: there is never anything to give back. */
async function nothingToRefund(_tx: Db): Promise<void> {}

/** The whole kind, as the engine sees it. */
export const previewJobs: JobDefinition<PreviewRow, PreviewWorkParams> = {
  kind: "preview",
  table: "preview_jobs",
  noun: "preview",
  // Free: a key with nothing left may still preview (the price check skips a 0).
  cheapestCents: 0,
  statuses: PREVIEW_STATUSES,
  final: PREVIEW_FINAL,
  moves: PREVIEW_MOVES,
  waiting: "queued",
  running: "running",
  params: PreviewWorkParams,
  workItem,
  fileLayout: PREVIEW_FILES,
  uploads: {
    input: { statuses: ["awaiting_upload"], once: true },
    ...Object.fromEntries(PREVIEW_OUTPUTS.map((f) => [f, { statuses: ["running"], once: false }])),
  },
  refund: nothingToRefund,
  // Every preview is about the same work: three short restores of one excerpt.
  estimate: {
    classSql: () => sql`'preview'`,
    amountSql: () => sql`1`,
    doneAmountSql: () => sql`1`,
    succeededSql: (t) => sql`${sql.ref(`${t}.result`)} IS NOT NULL`,
    work: () => ({ workClass: "preview", amount: 1 }),
    defaults: { preview: 60 },
  },
  async finish(row, result, deps) {
    const parsed = PreviewResult.safeParse(result.meta.preview);
    if (!parsed.success) return { retry: "The worker sent no preview." };
    // `done` promises pictures: every quality's side-by-side still must be stored.
    for (const q of PREVIEW_QUALITIES) {
      if (!(await deps.storage.head(previewFileKey(row.id, `${q}-pair`)))) {
        return { retry: PREVIEW_MESSAGES.outputMissing };
      }
    }
    return { set: { result: JSON.stringify(parsed.data) } };
  },
  end: (failure) => ({
    move: failure.kind === "too_long" || failure.kind === "refused" ? "refuse" : "fail",
    set: { error_code: failure.kind === "too_long" ? "too_long" : (failure.code ?? null) },
  }),
  exhausted: PREVIEW_MESSAGES.exhausted,
  workerLost: PREVIEW_MESSAGES.workerLost,
  files: (row) => [row.input_key, ...PREVIEW_OUTPUTS.map((f) => previewFileKey(row.id, f))],
  // The video is no longer needed once the preview ended, whichever way.
  filesAfterEnd: (row) => [row.input_key],
  retention(deps) {
    const retentionMs = deps.retentionHours * 3600_000;
    return [
      {
        statuses: ["awaiting_upload"],
        due: { column: "upload_expires_at", before: (now) => now },
        move: "uploadExpired",
        set: (_row, now) => ({ error: PREVIEW_MESSAGES.uploadExpired, finished_at: now }),
      },
      {
        statuses: ["done"],
        due: { column: "expires_at", before: (now) => now },
        move: "retentionExpired",
        set: () => ({ error: PREVIEW_MESSAGES.retention(deps.retentionHours) }),
      },
      {
        statuses: ["failed", "refused", "cancelled", "expired"],
        due: { column: "finished_at", before: (now) => new Date(now.getTime() - retentionMs) },
      },
    ];
  },
};

/**
 * A preview's use cases: make one (free — no charge, no ledger entry — counted per wallet), read
 * it (held until it changes), list, start once the video arrived, cancel before that. Each is
 * scoped to the caller: a wallet sees its previews, an agent key only its own; anyone else's
 * is not found.
 */
import {
  ApiError,
  invalidField,
  notFound,
  overALimit,
  wrongState,
} from "../../../domain/errors.js";
import { DEFAULT_FADE_HINT, type FadeHint } from "../../../domain/fade.js";
import type { Principal } from "../../../domain/principal.js";
import { moveJob } from "../../../jobs/move.js";
import { waitForChange } from "../../../jobs/watch.js";
import { checkPublicUrl, ImageFetchError } from "../../../net/safe-fetch.js";
import type { waitOptions } from "../../../operations/wait.js";
import { ownedJobsPage, type PageInput } from "../../../services/pagination.js";
import { PREVIEW_MESSAGES, PREVIEW_UPLOAD_WINDOW_SEC } from "../rules/transitions.js";
import { previewInputKey, previewJobs } from "./definition.js";
import type { PreviewDeps } from "./deps.js";
import { takePreview } from "./rate.js";
import type { PreviewRow } from "./table.js";
import { previewView, previewViews } from "./views.js";

/** How the video reaches a preview, as the caller sent it. */
export interface PreviewSource {
  size?: number | undefined;
  content_type?: string | undefined;
  video_url?: string | undefined;
  /** What the customer says of the tape's levels; default auto. */
  fade?: FadeHint | undefined;
}

/** The largest upload a preview takes: one PUT, no larger than a restore's largest file. */
export const previewMaxBytes = (deps: PreviewDeps) =>
  Math.min(deps.config.restoreLimits.maxSizeBytes, deps.config.uploads.singleMaxBytes);

/** The source, checked: an upload's size and type, or a public video_url — exactly one. */
async function checkSource(deps: PreviewDeps, input: PreviewSource) {
  const upload = input.size !== undefined || input.content_type !== undefined;
  if (input.video_url !== undefined) {
    if (upload)
      throw invalidField("video_url", "give either video_url or size and content_type, not both");
    try {
      await checkPublicUrl(input.video_url, {
        field: "video_url",
        timeoutMs: 5000,
        allowLoopback: deps.config.allowLoopbackUrls,
      });
    } catch (err) {
      if (err instanceof ImageFetchError) throw new ApiError("video_fetch_failed", err.message);
      throw err;
    }
    return { url: input.video_url, size: null, type: "application/octet-stream" };
  }
  if (input.size === undefined) {
    throw invalidField("size", "is required: the file's size in bytes (or give video_url instead)");
  }
  if (input.content_type === undefined) {
    throw invalidField(
      "content_type",
      "is required with size: the file's video type, e.g. video/mp4",
    );
  }
  const type = input.content_type.toLowerCase();
  // Any video type: the engine decodes what ffmpeg decodes, and the upload must carry it.
  if (!/^video\/[a-z0-9.+-]+$/.test(type)) {
    throw invalidField("content_type", "must be a video type, e.g. video/mp4 or video/quicktime");
  }
  const max = previewMaxBytes(deps);
  if (input.size > max) {
    throw overALimit(
      "size",
      `a preview takes files up to ${max} bytes in one upload; give a video_url, or preview a shorter copy`,
    );
  }
  return { url: null, size: input.size, type };
}

/** The preview if this caller may see it; else 404 (another wallet's or key's is not found). */
export async function ownedPreview(deps: PreviewDeps, principal: Principal, id: string) {
  let q = deps.db
    .selectFrom("preview_jobs")
    .selectAll()
    .where("id", "=", id)
    .where("wallet_id", "=", principal.walletId);
  if (principal.kind === "agent") q = q.where("agent_key_id", "=", principal.keyId);
  const row = await q.executeTakeFirst();
  if (!row) throw notFound("Preview");
  return row;
}

/**
 * Makes a preview: nothing is charged. An upload waits for its file (the link lives an hour);
 * a video_url preview is queued at once.
 */
export async function createPreview(deps: PreviewDeps, principal: Principal, input: PreviewSource) {
  const source = await checkSource(deps, input);
  await takePreview(deps, principal.walletId);
  const id = deps.ids("pv");
  const now = deps.clock();
  const row = await deps.db
    .insertInto("preview_jobs")
    .values({
      id,
      status: source.url ? "queued" : "awaiting_upload",
      wallet_id: principal.walletId,
      agent_key_id: principal.kind === "agent" ? principal.keyId : null,
      amount_cents: 0,
      max_attempts: deps.config.workers.maxAttempts,
      created_at: now,
      updated_at: now,
      queued_at: source.url ? now : null,
      input_key: previewInputKey(id),
      size_bytes: source.size,
      content_type: source.type,
      source_url: source.url,
      fade: input.fade ?? DEFAULT_FADE_HINT,
      upload_expires_at: new Date(now.getTime() + PREVIEW_UPLOAD_WINDOW_SEC * 1000),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (source.url) {
    await deps.notifyJobs();
    return { job: await previewView(deps, row) };
  }
  const link = await deps.storage.presignUpload(row.input_key, {
    contentType: source.type,
    sizeBytes: source.size ?? 0,
    expiresInSec: PREVIEW_UPLOAD_WINDOW_SEC,
  });
  return { job: await previewView(deps, row), upload_url: link.url, upload_headers: link.headers };
}

/** One preview; with a wait, after its status (or progress) changes. */
export async function getPreview(
  deps: PreviewDeps,
  principal: Principal,
  id: string,
  wait: ReturnType<typeof waitOptions>,
) {
  const row = await waitForChange(deps.jobWatch, id, () => ownedPreview(deps, principal, id), {
    ...wait,
    final: previewJobs.final,
    onProgress: wait.onProgress && ((r: PreviewRow) => wait.onProgress?.(r.progress ?? 0)),
  });
  return { job: await previewView(deps, row) };
}

/** A page of this caller's previews, newest first. */
export async function listPreviews(deps: PreviewDeps, principal: Principal, page: PageInput) {
  const { rows, nextCursor } = await ownedJobsPage(deps.db, "preview_jobs", principal, {
    limit: page.limit ?? 20,
    cursor: page.cursor,
    idPrefix: "pv",
  });
  return { jobs: await previewViews(deps, rows), next_cursor: nextCursor };
}

/** awaiting_upload → queued once the video arrived; a started preview is returned unchanged. */
export async function startPreview(deps: PreviewDeps, principal: Principal, id: string) {
  const row = await ownedPreview(deps, principal, id);
  if (row.status !== "awaiting_upload") {
    if (["queued", "running", "done"].includes(row.status)) {
      return { job: await previewView(deps, row) };
    }
    throw wrongState(`The preview is ${row.status} and cannot be started.`);
  }
  if (!(await deps.storage.head(row.input_key))) {
    throw new ApiError("not_uploaded", PREVIEW_MESSAGES.notUploaded);
  }
  const now = deps.clock();
  const moved = await moveJob(deps.db, previewJobs, id, "start", now, { queued_at: now });
  if (!moved) return { job: await previewView(deps, await ownedPreview(deps, principal, id)) };
  await deps.notifyJobs();
  return { job: await previewView(deps, moved) };
}

/** Cancels a preview that has not started; cancelling twice is a no-op. */
export async function cancelPreview(deps: PreviewDeps, principal: Principal, id: string) {
  const row = await ownedPreview(deps, principal, id);
  if (row.status === "cancelled") return { job: await previewView(deps, row) };
  if (row.status !== "awaiting_upload") {
    throw wrongState(
      `The preview is ${row.status}; only one that has not started can be cancelled.`,
    );
  }
  const now = deps.clock();
  const set = { error: "Cancelled.", finished_at: now };
  const moved = await moveJob(deps.db, previewJobs, id, "cancel", now, set, {
    events: deps.events,
  });
  if (!moved) throw wrongState("The preview started meanwhile and can no longer be cancelled.");
  return { job: await previewView(deps, moved) };
}

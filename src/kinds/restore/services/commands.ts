/** start and read: the caller-facing commands on an existing restore job (cancel: cancel.ts). */
import { ApiError, notFound, wrongState } from "../../../domain/errors.js";
import { type WaitUntil, waitForChange } from "../../../jobs/watch.js";
import type { Principal } from "../../../services/auth.js";
import { RESTORE_FINAL } from "../rules/transitions.js";
import type { RestoreDeps } from "./deps.js";
import { settleRestoreUpload } from "./parts.js";
import { findJob, moveRestore, type RestoreJobRow } from "./store.js";
import { uploadProblem } from "./upload-check.js";
import { jobView } from "./views.js";

const NOT_FOUND = "Restore job not found (or not visible to this key).";

/** The job if it belongs to the wallet — and, for an agent key, to that key; else 404. */
export async function ownedJob(p: RestoreDeps, principal: Principal, id: string) {
  const row = await findJob(p.db, id);
  const visible =
    row &&
    row.wallet_id === principal.walletId &&
    (principal.kind === "wallet" || row.agent_key_id === principal.keyId);
  if (!row || !visible) throw new ApiError("not_found", NOT_FOUND);
  return row;
}

interface ReadOptions {
  /** Wait up to this long for the job's status (or, per `until`, progress) to change. */
  waitMs?: number;
  signal?: AbortSignal;
  until?: WaitUntil | undefined;
  /** Told of each progress change while the wait goes on (0..1). */
  onProgress?: ((progress: number) => void) | undefined;
}

/** GET /cloud/jobs/{id}: the job id is the capability, no key needed. */
export async function getRestoreJob(p: RestoreDeps, id: string, opts: ReadOptions = {}) {
  const read = async () => {
    const row = await findJob(p.db, id);
    if (!row) throw notFound("Restore job");
    return row;
  };
  const row = await waitForChange(p.jobWatch, id, read, {
    waitMs: opts.waitMs ?? 0,
    final: RESTORE_FINAL,
    signal: opts.signal,
    until: opts.until,
    onProgress: opts.onProgress && ((row) => opts.onProgress?.(row.progress ?? 0)),
  });
  return { job: await jobView(p, row) };
}

/** The same read for a key (MCP get_restore): another wallet's or another key's job is a 404. */
export async function getOwnedRestoreJob(
  p: RestoreDeps,
  principal: Principal,
  id: string,
  opts: ReadOptions = {},
) {
  await ownedJob(p, principal, id);
  return getRestoreJob(p, id, opts);
}

function notStartable(row: RestoreJobRow): ApiError {
  switch (row.status) {
    case "pending_payment":
      return new ApiError("paid_by_checkout", "This job is paid by checkout: it starts once paid.");
    case "cancelled":
      return wrongState("This job was cancelled and refunded; create a new job.");
    case "expired":
      return wrongState(`This job expired: ${row.error ?? "create a new job."}`);
    default:
      return wrongState(`This job is ${row.status} and cannot be started.`);
  }
}

const STARTED = new Set<RestoreJobRow["status"]>(["processing", "done", "failed", "refunded"]);

/** Starts a restore once its file is in storage; starting it again returns it unchanged. */
export async function startRestoreJob(p: RestoreDeps, principal: Principal, id: string) {
  const row = await ownedJob(p, principal, id);
  // Starting a started job returns it unchanged (a retried request must not fail).
  if (STARTED.has(row.status)) return { job: await jobView(p, row) };
  if (row.status !== "awaiting_upload") throw notStartable(row);
  // A file sent in parts is joined first (400 naming any part still missing).
  await settleRestoreUpload(p, row);
  const problem = await uploadProblem(p.storage, row);
  if (problem) throw problem;
  const now = p.clock();
  const moved = await moveRestore(p.db, id, "start", now, {
    queued_at: now,
    progress: 0,
    expires_at: new Date(now.getTime() + p.config.retentionHours * 3600_000),
  });
  if (!moved) {
    const latest = await ownedJob(p, principal, id);
    if (STARTED.has(latest.status)) return { job: await jobView(p, latest) };
    throw notStartable(latest);
  }
  await p.notifyJobs();
  return { job: await jobView(p, moved) };
}

/**
 * Echo's use cases: create (charge and insert in one transaction), read (held until it
 * changes), list, start once the text arrived, cancel before that — each scoped to the caller:
 * a wallet sees its echoes, an agent key only its own.
 */

import { ApiError, notFound, wrongState } from "../../../../src/domain/errors.js";
import type { Principal } from "../../../../src/domain/principal.js";
import type { Platform } from "../../../../src/feature.js";
import { moveJob } from "../../../../src/jobs/move.js";
import { estimateQueue } from "../../../../src/jobs/queue-estimate/read.js";
import { waitForChange } from "../../../../src/jobs/watch.js";
import type { waitOptions } from "../../../../src/operations/wait.js";
import { charge } from "../../../../src/services/ledger.js";
import { ownedJobsPage, type PageInput } from "../../../../src/services/pagination.js";
import type { EchoView } from "../api/schemas.js";
import { ECHO_LIST_MAX, ECHO_PRICE_CENTS, ECHO_UPLOAD_WINDOW_SEC } from "../rules/transitions.js";
import { echoInputKey, echoJobs } from "./definition.js";
import type { EchoRow } from "./table.js";

/** What echo's services use of the platform. */
export type EchoDeps = Pick<
  Platform,
  "db" | "clock" | "ids" | "log" | "events" | "storage" | "notifyJobs" | "jobWatch" | "jobKinds"
> & { config: Pick<Platform["config"], "workers"> };

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** The views of several echoes, with their queue estimates. */
async function views(deps: EchoDeps, rows: readonly EchoRow[]): Promise<EchoView[]> {
  const queue = await estimateQueue(deps.db, echoJobs, deps.jobKinds.all(), rows, deps.clock());
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    shout: row.shout,
    amount_cents: Number(row.amount_cents),
    progress: row.progress,
    result: row.result,
    error: row.error,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    finished_at: iso(row.finished_at),
    expires_at: iso(row.expires_at ?? row.upload_expires_at),
    queue: queue.get(row.id) ?? null,
  }));
}

/** One echo's view. */
export async function echoView(deps: EchoDeps, row: EchoRow): Promise<EchoView> {
  const [view] = await views(deps, [row]);
  if (!view) throw new Error("no view of an echo");
  return view;
}

/** The echo if this caller may see it; else 404 (another wallet's or key's is not found). */
async function findOwned(deps: EchoDeps, principal: Principal, id: string): Promise<EchoRow> {
  let q = deps.db
    .selectFrom("echo_jobs")
    .selectAll()
    .where("id", "=", id)
    .where("wallet_id", "=", principal.walletId);
  if (principal.kind === "agent") q = q.where("agent_key_id", "=", principal.keyId);
  const row = await q.executeTakeFirst();
  if (!row) throw notFound("Echo job");
  return row;
}

/** Charges the price and inserts the echo in one transaction; the upload link for its text. */
export async function createEcho(
  deps: EchoDeps,
  principal: Principal,
  input: { text_bytes: number; shout: boolean },
) {
  const id = deps.ids("echo");
  const now = deps.clock();
  const row = await deps.db.transaction().execute(async (tx) => {
    await charge(tx, {
      walletId: principal.walletId,
      agentKeyId: principal.kind === "agent" ? principal.keyId : null,
      amountCents: ECHO_PRICE_CENTS,
      jobId: id,
      reason: `echo ${id}`,
      keySpentBelowCents: deps.jobKinds.cheapestCents(),
    });
    return tx
      .insertInto("echo_jobs")
      .values({
        id,
        status: "awaiting_upload",
        wallet_id: principal.walletId,
        agent_key_id: principal.kind === "agent" ? principal.keyId : null,
        amount_cents: ECHO_PRICE_CENTS,
        max_attempts: deps.config.workers.maxAttempts,
        created_at: now,
        updated_at: now,
        input_key: echoInputKey(id),
        text_bytes: input.text_bytes,
        shout: input.shout,
        upload_expires_at: new Date(now.getTime() + ECHO_UPLOAD_WINDOW_SEC * 1000),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  const link = await deps.storage.presignUpload(row.input_key, {
    contentType: "text/plain",
    sizeBytes: input.text_bytes,
    expiresInSec: ECHO_UPLOAD_WINDOW_SEC,
  });
  return { job: await echoView(deps, row), upload_url: link.url, upload_headers: link.headers };
}

/** One echo; with a wait, after its status (or progress) changes. */
export async function getEcho(
  deps: EchoDeps,
  principal: Principal,
  id: string,
  wait: ReturnType<typeof waitOptions>,
) {
  const row = await waitForChange(deps.jobWatch, id, () => findOwned(deps, principal, id), {
    ...wait,
    final: echoJobs.final,
    onProgress: wait.onProgress && ((r) => wait.onProgress?.(r.progress ?? 0)),
  });
  return { job: await echoView(deps, row) };
}

/** A page of this caller's echoes, newest first. */
export async function listEchoes(deps: EchoDeps, principal: Principal, page: PageInput) {
  const { rows, nextCursor } = await ownedJobsPage(deps.db, "echo_jobs", principal, {
    limit: page.limit ?? ECHO_LIST_MAX,
    cursor: page.cursor,
    idPrefix: "echo",
  });
  return { jobs: await views(deps, rows), next_cursor: nextCursor };
}

/** awaiting_upload → queued once the text arrived; a started echo is returned unchanged. */
export async function startEcho(deps: EchoDeps, principal: Principal, id: string) {
  const row = await findOwned(deps, principal, id);
  if (row.status !== "awaiting_upload") {
    if (["queued", "running", "done"].includes(row.status))
      return { job: await echoView(deps, row) };
    throw wrongState(`The echo is ${row.status} and cannot be started.`);
  }
  if (!(await deps.storage.head(row.input_key))) {
    throw new ApiError("not_uploaded", "The text has not been uploaded yet: PUT it to upload_url.");
  }
  const now = deps.clock();
  const moved = await moveJob(deps.db, echoJobs, id, "start", now, { queued_at: now });
  if (!moved) return { job: await echoView(deps, await findOwned(deps, principal, id)) };
  await deps.notifyJobs();
  return { job: await echoView(deps, moved) };
}

/** Cancels an echo that has not started and refunds it; cancelling twice is a no-op. */
export async function cancelEcho(deps: EchoDeps, principal: Principal, id: string) {
  const row = await findOwned(deps, principal, id);
  if (row.status === "cancelled") return { job: await echoView(deps, row) };
  if (row.status !== "awaiting_upload") {
    throw wrongState(`The echo is ${row.status}; only one that has not started can be cancelled.`);
  }
  const now = deps.clock();
  const set = { error: "Cancelled; the price was refunded.", finished_at: now };
  const moved = await moveJob(deps.db, echoJobs, id, "cancel", now, set, { events: deps.events });
  if (!moved) throw wrongState("The echo started meanwhile and can no longer be cancelled.");
  return { job: await echoView(deps, moved) };
}

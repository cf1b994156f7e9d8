/**
 * A WorkSource over the server's HTTP worker API, for `kinora worker` on another machine:
 * long-poll claims, heartbeats, notes, completes and fails with `Authorization: Bearer WORKER_TOKEN`.
 * Each request has a time-out so a dead server shows up as an error the loop backs off from.
 */

import { recordOf } from "../domain/records.js";
import type { WorkItem, WorkSource } from "../jobs/work.js";
import type { FetchLike } from "./transfer.js";

interface HttpWorkSourceOptions {
  server: string;
  token: string;
  fetch?: FetchLike;
  /** Time-out of one report request (claims add their wait). */
  requestTimeoutMs?: number;
}

/** The server caps a claim's wait at 25 s (below common proxy idle time-outs). */
const MAX_WAIT_MS = 25_000;

class WorkerApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "WorkerApiError";
  }
}

/** A work source over a server's HTTP worker API (`kinora worker`). */
export function createHttpWorkSource(opts: HttpWorkSourceOptions): WorkSource {
  const base = opts.server.replace(/\/+$/, "");
  const fetchImpl: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  const timeoutMs = opts.requestTimeoutMs ?? 30_000;

  async function post<T>(path: string, body: unknown, extraMs = 0): Promise<T> {
    const res = await fetchImpl(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${opts.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs + extraMs),
    });
    const text = await res.text();
    if (!res.ok) {
      let detail = text;
      try {
        const said = recordOf(JSON.parse(text)).detail;
        detail = typeof said === "string" ? said : text;
      } catch {}
      throw new WorkerApiError(res.status, `${path}: ${res.status} ${detail}`);
    }
    // cast: the worker API's answer for this path is T (the server's contract for its worker routes)
    return JSON.parse(text) as T;
  }

  const jobPath = (item: WorkItem, what: string) =>
    `/worker/jobs/${encodeURIComponent(item.jobId)}/${what}`;

  return {
    async claim(kinds, workerId, waitMs) {
      const wait = Math.min(Math.max(0, waitMs), MAX_WAIT_MS);
      const out = await post<{ item: WorkItem | null }>(
        "/worker/claim",
        { kinds, worker_id: workerId, wait_ms: wait },
        wait,
      );
      return out.item;
    },
    async heartbeat(item, workerId, progress) {
      const out = await post<{ ok: boolean }>(jobPath(item, "heartbeat"), {
        kind: item.kind,
        worker_id: workerId,
        progress,
      });
      return out.ok;
    },
    async note(item, workerId, note) {
      const out = await post<{ ok: boolean }>(jobPath(item, "note"), {
        kind: item.kind,
        worker_id: workerId,
        note,
      });
      return out.ok;
    },
    async complete(item, workerId, result) {
      await post(jobPath(item, "complete"), { kind: item.kind, worker_id: workerId, result });
    },
    async fail(item, workerId, failure) {
      await post(jobPath(item, "fail"), { kind: item.kind, worker_id: workerId, failure });
    },
    async release(item, workerId) {
      await post(jobPath(item, "release"), { kind: item.kind, worker_id: workerId });
    },
  };
}

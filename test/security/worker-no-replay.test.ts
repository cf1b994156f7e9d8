/**
 * Worker calls are never answered from an idempotency record (issue 21, item 9), over real
 * HTTP: a heartbeat repeated with the same Idempotency-Key runs again and extends the lease
 * each time; the other reports with a repeated key are answered by the queue, not a replay,
 * and the worker API stores no idempotency record at all.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { jobBody, makeVideo } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

const TOKEN = "worker-token-for-idempotency-0123";
let s: ServedApp;
let video: { path: string; sizeBytes: number };

beforeAll(async () => {
  s = await serveTestApp({
    features: [restoreFeature({ noExecutor: true })],
    env: { WORKER_TOKEN: TOKEN },
  });
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-worker-idem-")), 1);
});
afterAll(async () => {
  await s?.close();
});

async function post(p: string, body: object, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}${p}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

const worker = { authorization: `Bearer ${TOKEN}`, "idempotency-key": "same-every-time" };

const leaseOf = async (id: string) => {
  const row = await s.t.deps.db
    .selectFrom("restore_jobs")
    .select(["lease_expires_at", "progress"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return { until: new Date(row.lease_expires_at as Date).getTime(), progress: row.progress };
};

describe("the worker API with a repeated Idempotency-Key", () => {
  it("runs every heartbeat: each one extends the lease and records its progress", async () => {
    const { key } = await s.t.newWallet(5000);
    const auth = { authorization: `Bearer ${key}` };
    const created = await post("/cloud/jobs", jobBody(video), auth);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.job.id as string;
    const put = await fetch(created.body.upload_url, {
      method: "PUT",
      headers: created.body.upload_headers,
      body: readFileSync(video.path),
    });
    expect(put.status).toBe(200);
    expect((await post(`/cloud/jobs/${id}/start`, {}, auth)).status).toBe(200);
    const claim = await post("/worker/claim", { kinds: ["restore"], worker_id: "w1" }, worker);
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    expect(claim.body.item?.jobId).toBe(id);

    let last = (await leaseOf(id)).until;
    for (const progress of [0.2, 0.5, 0.8]) {
      s.t.clock.advance(20_000);
      await new Promise((r) => setTimeout(r, 25));
      const beat = await post(
        `/worker/jobs/${id}/heartbeat`,
        { kind: "restore", worker_id: "w1", progress },
        worker,
      );
      expect(beat.status).toBe(200);
      expect(beat.body).toEqual({ ok: true });
      expect(beat.headers.get("idempotent-replayed")).toBeNull();
      const lease = await leaseOf(id);
      expect(lease.until).toBeGreaterThan(last);
      expect(Number(lease.progress)).toBeCloseTo(progress);
      last = lease.until;
    }

    // A report from a worker that no longer holds the lease is answered by the queue, not by
    // the record of the holder's earlier call with the same key.
    const stranger = await post(
      `/worker/jobs/${id}/heartbeat`,
      { kind: "restore", worker_id: "w2", progress: 0.9 },
      worker,
    );
    expect(stranger.body).toEqual({ ok: false });

    const records = await s.t.deps.db.selectFrom("idempotency_keys").selectAll().execute();
    expect(records).toEqual([]);
  });
});

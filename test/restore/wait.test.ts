import { beforeAll, describe, expect, it } from "vitest";
import { CLIENTS, call, connect, type Json, refusal } from "../mcp/helpers.js";
import type { ServedApp } from "../served.js";
import { useSteppedServer } from "./stepped-server.js";

const STEPS = 10;
const STEP_MS = 300;
const server = useSteppedServer({ steps: STEPS, stepMs: STEP_MS, workerId: "wait-w0" });
const { rest } = server;
const agentKey = async () => (await server.agentKey()).key;
let s: ServedApp;
beforeAll(() => {
  s = server.s;
});

const BYTES = new Uint8Array(4096).fill(9);

/** A balance-paid restore, uploaded and started: processing, waiting for the worker. */
async function startedRestore(key: string): Promise<string> {
  const created = (
    await rest("POST", "/cloud/jobs", {
      key,
      body: {
        duration_sec: 2,
        quality: "faithful",
        filename: "v.mp4",
        content_type: "video/mp4",
        size: BYTES.length,
      },
    })
  ).body;
  const put = await fetch(created.upload_url, {
    method: "PUT",
    headers: created.upload_headers,
    body: BYTES,
  });
  expect(put.status).toBe(200);
  const started = await rest("POST", `/cloud/jobs/${created.job.id}/start`, { key });
  expect(started.body.job.status).toBe("processing");
  return created.job.id;
}

describe("REST ?wait=", () => {
  it("holds until the status changes: one read follows a 3 s restore to done", async () => {
    const id = await startedRestore(await agentKey());
    const t0 = Date.now();
    const read = await rest("GET", `/cloud/jobs/${id}?wait=20`);
    const ms = Date.now() - t0;
    expect(read.body.job.status).toBe("done");
    expect(read.body.job.download_url).toEqual(expect.any(String));
    expect(ms).toBeGreaterThan(STEPS * STEP_MS - 500);
  });

  it("with until=progress answers at the first progress report", async () => {
    const id = await startedRestore(await agentKey());
    const read = await rest("GET", `/cloud/jobs/${id}?wait=20&until=progress`);
    expect(read.body.job.status).toBe("processing");
    expect(read.body.job.progress).toBeGreaterThan(0);
    expect(read.body.job.progress).toBeLessThan(1);
    await rest("GET", `/cloud/jobs/${id}?wait=20`);
  });

  it("refuses an unknown until, naming the query parameter", async () => {
    const id = await startedRestore(await agentKey());
    const bad = await rest("GET", `/cloud/jobs/${id}?wait=1&until=soon`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_field");
    expect(bad.body.detail).toMatch(/until/);
    await rest("GET", `/cloud/jobs/${id}?wait=20`);
  });
});

describe("MCP wait_seconds", () => {
  it.each(CLIENTS)(
    "%s: follows a restore in one get_restore call, with progress notifications",
    async (kind) => {
      const key = await agentKey();
      const client = await connect(s.url, key, { client: kind });
      const id = await startedRestore(key);
      const seen: Json[] = [];
      let calls = 0;
      let job: Json;
      do {
        calls++;
        const res = await client.callTool(
          { name: "get_restore", arguments: { job_id: id, wait_seconds: 25 } },
          { onprogress: (p: Json) => seen.push(p) },
        );
        expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
        job = res.structuredContent.job;
      } while (job.status === "processing" && calls < 5);
      expect(job.status).toBe("done");
      expect(calls).toBe(1);
      // Every report the waiting call saw, increasing, out of 1.
      expect(seen.length).toBeGreaterThanOrEqual(3);
      const values = seen.map((p) => p.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      expect(seen[0]).toMatchObject({ total: 1, message: expect.stringMatching(/% done$/) });
      await client.close();
    },
  );

  it("until progress answers at the first report; a bad until is a refusal naming the field", async () => {
    const key = await agentKey();
    const client = await connect(s.url, key);
    const id = await startedRestore(key);
    const res = await call(client, "get_restore", {
      job_id: id,
      wait_seconds: 25,
      until: "progress",
    });
    expect(res.structuredContent.job.status).toBe("processing");
    expect(res.structuredContent.job.progress).toBeGreaterThan(0);
    const bad = refusal(await call(client, "get_restore", { job_id: id, until: "soon" }));
    expect(bad).toMatchObject({ code: "invalid_field" });
    expect(bad.detail).toMatch(/^until:/);
    await call(client, "get_restore", { job_id: id, wait_seconds: 25 });
    await client.close();
  });
});

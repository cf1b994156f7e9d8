/**
 * Issue 34 item 3: one estimate, every surface. One worker is busy with a restore (its
 * progress and pace reported through the queue, on the injected clock); a clip and a restore
 * wait behind it. The console's page, `kinora get` (JSON and human), `kinora jobs` and REST
 * show the same figure for the same job — the server's queue.eta_seconds, formatted alike —
 * and a waiting restore says queued with its place, never "processing 0%".
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleFeature } from "../../src/features/console.js";
import type { JobQueue } from "../../src/jobs/work.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { restoreOutputKey } from "../../src/kinds/restore/services/definition.js";
import { cliCommand, ROOT } from "../cli/harness.js";
import { createUploadStart, makeImage, stubClassifier } from "../clips/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { consoleFor, consoleRow } from "./console-session.js";

const run = promisify(execFile);
let s: ServedApp;
let home: string;
let key: string;
const queues = new Map<string, JobQueue>();
const LEASE = 600_000;

beforeAll(async () => {
  s = await serveTestApp({
    features: [
      restoreFeature({ noExecutor: true }),
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      consoleFeature(),
    ],
  });
  for (const q of s.t.features.flatMap((f) => f.queues ?? [])) queues.set(q.kind, q);
  key = (await s.t.newWallet(100_000)).key;
  home = mkdtempSync(path.join(tmpdir(), "kinora-estimate-home-"));
  mkdirSync(path.join(home, "kinora"), { mode: 0o700 });
  writeFileSync(path.join(home, "kinora", "config.json"), JSON.stringify({ server: s.url, key }), {
    mode: 0o600,
  });
}, 60_000);

afterAll(async () => {
  await s?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The client from source, as a person runs it, signed in to this server. */
async function kinora(...args: string[]): Promise<string> {
  const [cmd, argv] = cliCommand(args);
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home };
  const { stdout } = await run(cmd, argv, { cwd: ROOT, env, timeout: 60_000 });
  return stdout;
}

const queue = (kind: string) => queues.get(kind) as JobQueue;

async function startedRestore(seconds: number): Promise<string> {
  s.t.clock.advance(1000);
  const body = {
    duration_sec: seconds,
    quality: "faithful",
    filename: "reel.mp4",
    content_type: "video/mp4",
    size: 1000,
  };
  const created = await s.t.call("POST", "/cloud/jobs", { key, body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const put = await s.t.fetchUrl(created.body.upload_url, {
    method: "PUT",
    headers: created.body.upload_headers,
    body: new Uint8Array(1000),
  });
  expect(put.status).toBeLessThan(300);
  const id = created.body.job.id as string;
  expect((await s.t.call("POST", `/cloud/jobs/${id}/start`, { key })).status).toBe(200);
  return id;
}

async function complete(id: string, worker: string) {
  const ticket = await s.t.platform.storage.presignUpload(restoreOutputKey(id), {
    contentType: "video/mp4",
    sizeBytes: 10,
    expiresInSec: 60,
  });
  await s.t.fetchUrl(ticket.url, {
    method: "PUT",
    headers: ticket.headers,
    body: new Uint8Array(10),
  });
  expect(await queue("restore").complete(id, worker, { outputBytes: 10, meta: {} })).toBe("ok");
}

describe("the queue estimate on every surface, one worker busy", () => {
  it("shows the same figure in the console, the client (JSON and words) and REST", async () => {
    // The worker has finished one restore (a minute of video in 40 s): the measured speed.
    const first = await startedRestore(60);
    expect((await queue("restore").claim("w1", LEASE))?.jobId).toBe(first);
    s.t.clock.advance(40_000);
    await complete(first, "w1");

    // It now runs a two-minute restore, 30 % done after 30 s; a clip and a restore wait.
    const busy = await startedRestore(120);
    expect((await queue("restore").claim("w1", LEASE))?.jobId).toBe(busy);
    s.t.clock.advance(30_000);
    expect(await queue("restore").heartbeat(busy, "w1", LEASE, 0.3)).toBe("ok");
    s.t.clock.advance(1000);
    const clip = (await createUploadStart(s.t, key, await makeImage(64, 64))).started.body.job
      .id as string;
    const waiting = await startedRestore(60);

    // The clock stands still from here: every surface reads the same moment.
    const rest = (await s.t.call("GET", `/cloud/jobs/${waiting}`)).body.job;
    expect(rest.status).toBe("processing");
    expect(rest.queue).toMatchObject({ state: "queued", position: 2, ahead: 1 });

    const html = await (await consoleFor(s.t, key))();
    const row = consoleRow(html, waiting);
    const consoleEta = Number(/data-eta-seconds="(\d+)"/.exec(row)?.[1]);
    const consoleWords = /done in <time[^>]*>(about [^<]+)<\/time>/.exec(row)?.[1];
    expect(row).toContain('<span class="state">queued</span>');
    expect(row).toContain("2nd in the queue");
    expect(row).not.toMatch(/processing|<progress/);

    const [json, words, listed] = await Promise.all([
      kinora("get", waiting, "--json"),
      kinora("get", waiting),
      kinora("jobs"),
    ]);
    const clientJob = JSON.parse(json).job;
    expect(clientJob.queue).toEqual(rest.queue);
    expect(consoleEta).toBe(rest.queue.eta_seconds);
    expect(consoleWords).toMatch(/^about \d+m \d\ds$/);
    expect(words).toContain(`Queue     2nd in the queue; ${consoleWords} left`);
    expect(words).toMatch(new RegExp(`${waiting}\\s+restore\\s+waiting for a worker\\n`));
    expect(listed).toMatch(new RegExp(`${waiting}\\s+restore\\s+queued \\(2nd in the queue\\)`));
    expect(listed).not.toMatch(/processing 0%/);

    // The clip ahead of it: the same in the console and the client too.
    const clipRow = consoleRow(html, clip);
    const clipJson = JSON.parse(await kinora("get", clip, "--json")).job;
    expect(clipJson.queue).toMatchObject({ state: "queued", position: 1 });
    expect(Number(/data-eta-seconds="(\d+)"/.exec(clipRow)?.[1])).toBe(clipJson.queue.eta_seconds);
    expect(clipRow).toContain("next in the queue");

    // The running restore: progress, and the same remaining time everywhere.
    const busyRow = consoleRow(html, busy);
    const busyJson = JSON.parse(await kinora("get", busy, "--json")).job;
    expect(busyJson.queue).toMatchObject({ state: "running", position: 0 });
    expect(busyRow).toContain("a worker is running it");
    expect(busyRow).toContain("30%");
    expect(Number(/data-eta-seconds="(\d+)"/.exec(busyRow)?.[1])).toBe(busyJson.queue.eta_seconds);
    // The clip waits for exactly that, then its own run; the restore behind it for both, then
    // its own minute of video at the measured 40 s a minute.
    expect(clipJson.queue.eta_seconds).toBeGreaterThan(busyJson.queue.eta_seconds);
    expect(rest.queue.eta_seconds).toBeGreaterThanOrEqual(clipJson.queue.eta_seconds + 39);
  }, 120_000);
});

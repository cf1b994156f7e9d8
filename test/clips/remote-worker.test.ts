/** A `kinora worker` elsewhere: claims a clip over the HTTP worker API with the registry's executors. */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { JOB_KINDS } from "../../src/job-kinds.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { workerExecutors } from "../../src/kinds/kind.js";
import { silentLogger } from "../../src/logger.js";
import { createHttpWorkSource } from "../../src/workers/http-source.js";
import { startWorkerLoop } from "../../src/workers/loop.js";
import type { TestApp } from "../app.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { createUploadStart, makeImage, waitForClip } from "./helpers.js";

const token = "worker-token-0123456789";
// The worker's own scratch space: it shares nothing with the server but HTTP.
const dir = mkdtempSync(path.join(tmpdir(), "kinora-clip-remote-"));
let served: ServedApp;
let t: TestApp;
let url = "";

beforeAll(async () => {
  served = await serveTestApp({
    features: [clipsFeature({ noExecutor: true })],
    env: { WORKER_TOKEN: token },
  });
  ({ t, url } = served);
});
afterAll(async () => {
  await served.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("clips on a remote worker", () => {
  it("claims, makes and stores the clip over HTTP with no database or storage credentials", async () => {
    const { key } = await t.newWallet(1000);
    const { created } = await createUploadStart(t, key, await makeImage(400, 300, 300));
    const loop = startWorkerLoop({
      workerId: "remote-clip-1",
      source: createHttpWorkSource({ server: url, token }),
      executors: workerExecutors(JOB_KINDS, loadConfig({ DATA_DIR: dir })).filter(
        (e) => e.kind === "clip",
      ),
      log: silentLogger,
      claimWaitMs: 2000,
      heartbeatMs: 500,
    });
    try {
      // A real CPU encode: seconds alone, up to a minute beside other files' encodes; the wait
      // ends before the test's limit so a slow clip says where it stuck.
      const clip = await waitForClip(
        t,
        key,
        created.job.id,
        ["done", "failed", "refused"],
        120_000,
      );
      expect(clip.status).toBe("done");
      const video = await fetch(clip.video_url);
      expect(video.status).toBe(200);
      expect((await video.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    } finally {
      await loop.stop(5_000);
    }
  }, 180_000);
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobSystem } from "../../src/workers/supervisor.js";
import {
  balances,
  type ClipTestApp,
  createClipTestApp,
  makeImage,
  startClipWorkers,
  waitForClip,
} from "./helpers.js";

let seamed: ClipTestApp;
let guarded: ClipTestApp;
let jobs: JobSystem;
let server: Server;
let base = "";
let hits = 0;

beforeAll(async () => {
  const image = await makeImage(480, 360, 90);
  server = createServer((req, res) => {
    hits++;
    if (req.url === "/photo.jpg") {
      res.writeHead(200, { "content-type": "image/jpeg" }).end(image);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  seamed = await createClipTestApp({
    imageFetch: { allowPrivateForTests: (address) => address === "127.0.0.1" },
  });
  guarded = await createClipTestApp({ noExecutor: true });
  jobs = await startClipWorkers(seamed);
});
afterAll(async () => {
  await jobs.stop(5_000);
  await Promise.all([seamed.close(), guarded.close()]);
  await new Promise((resolve) => server.close(resolve));
});

describe("POST /motion/jobs with image_url", () => {
  it("fetches the image before charging, queues the clip at once and makes it", async () => {
    const { key } = await seamed.newWallet(1000);
    const res = await seamed.call("POST", "/motion/jobs", {
      key,
      body: { prompt: "gentle drift, birds and wind", image_url: `${base}/photo.jpg`, seed: 7 },
    });
    expect(res.status).toBe(200);
    expect(res.body.job).toMatchObject({
      status: "queued",
      image_url: `${base}/photo.jpg`,
      seed: 7,
    });
    expect(res.body.upload_url).toBeUndefined();
    expect(res.body.wallet.balance_cents).toBe(941);
    const done = await waitForClip(seamed, key, res.body.job.id, ["done", "failed", "refused"]);
    expect(done.status).toBe("done");
  });

  it("answers 400 for an image_url that does not serve an image, charging nothing", async () => {
    const { key } = await seamed.newWallet(1000);
    const res = await seamed.call("POST", "/motion/jobs", {
      key,
      body: { prompt: "rain", image_url: `${base}/missing.jpg` },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/image_url/);
    expect(await balances(seamed, key)).toBe(1000);
  });

  it("refuses a loopback URL without the test seam: 400, nothing charged, nothing fetched", async () => {
    const { key, walletId } = await guarded.newWallet(1000);
    const before = hits;
    for (const url of [
      `${base}/photo.jpg`,
      "http://localhost:8080/x.png",
      "http://169.254.169.254/latest",
    ]) {
      const res = await guarded.call("POST", "/motion/jobs", {
        key,
        body: { prompt: "rain", image_url: url },
      });
      expect(res.status, url).toBe(400);
      expect(res.body.detail).toMatch(/image_url/);
    }
    expect(hits).toBe(before);
    expect(await balances(guarded, key)).toBe(1000);
    const clips = await guarded.deps.db
      .selectFrom("clips")
      .select("id")
      .where("wallet_id", "=", walletId)
      .execute();
    expect(clips).toEqual([]);
  });
});

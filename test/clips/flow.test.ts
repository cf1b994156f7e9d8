import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobSystem } from "../../src/workers/supervisor.js";
import {
  balances,
  type ClipTestApp,
  createClipTestApp,
  createUploadStart,
  ffprobe,
  imageGone,
  makeImage,
  saveTo,
  startClipWorkers,
  waitForClip,
} from "./helpers.js";

let t: ClipTestApp;
let jobs: JobSystem;
let dir: string;
let first: { image: Buffer; bytes: Buffer } | undefined;

beforeAll(async () => {
  t = await createClipTestApp();
  jobs = await startClipWorkers(t);
  dir = await mkdtemp(path.join(tmpdir(), "clip-flow-"));
});
afterAll(async () => {
  await jobs.stop(5_000);
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a clip end to end (upload flow)", () => {
  it("charges, uploads, starts, makes a 5 s 854x480 h264+aac clip and deletes the image", async () => {
    const { key } = await t.newWallet(1000);
    const image = await makeImage();
    const { created, started } = await createUploadStart(t, key, image, { seed: 42 });
    expect(created.job).toMatchObject({
      status: "awaiting_upload",
      size: "480p",
      seconds: 5,
      amount_cents: 59,
      seed: 42,
    });
    expect(created.wallet.balance_cents).toBe(941);
    expect(created.upload_url).toMatch(/^http/);
    expect(started.status).toBe(200);
    expect(started.body.job.status).toBe("queued");

    const done = await waitForClip(t, key, created.job.id, ["done", "failed", "refused"]);
    expect(done.status).toBe("done");
    expect(done.video_url).toBeTruthy();
    expect(done.download_url).toBeTruthy();
    expect(done.expires_at).toBeTruthy();

    const video = await t.fetchUrl(done.video_url);
    expect(video.status).toBe(200);
    const file = await saveTo(dir, "clip.mp4", video);
    first = { image, bytes: await readFile(file) };
    const probe = await ffprobe(file);
    expect(Number(probe.format.duration)).toBeCloseTo(5, 1);
    const v = probe.streams.find((s) => s.codec_type === "video");
    expect(v).toMatchObject({ codec_name: "h264", width: 854, height: 480 });
    expect(probe.streams.find((s) => s.codec_type === "audio")?.codec_name).toBe("aac");

    expect(await imageGone(t, done.id)).toBe(true);
    expect(await balances(t, key)).toBe(941);

    const again = await t.call("POST", `/motion/jobs/${done.id}/start`, { key });
    expect(again.body.job.status).toBe("done");
  });

  it("refuses an image that breaks the content rule: refused, refunded to balance and allowance", async () => {
    const owner = await t.newWallet(1000);
    const agent = await t.newAgentKey(owner.key, 200, { askBeforeSpending: false });
    t.classifier.refuse = "nudity";
    try {
      const { created } = await createUploadStart(t, agent.key, await makeImage(320, 240, 200));
      const clip = await waitForClip(t, agent.key, created.job.id, ["done", "failed", "refused"]);
      expect(clip).toMatchObject({ status: "refused", refused: "nudity" });
      expect(clip.error).toMatch(/nudity/);
      expect(await imageGone(t, clip.id)).toBe(true);
    } finally {
      t.classifier.refuse = null;
    }
    expect(await balances(t, owner.key)).toBe(1000);
    const asAgent = await t.call("GET", "/wallet", { key: agent.key });
    expect(asAgent.body.wallet.agent_key.remaining_cents).toBe(200);
  });

  it("fails a clip whose image is not an image, once, and refunds it once", async () => {
    const { key, walletId } = await t.newWallet(1000);
    const junk = Buffer.from("this is not an image at all, just text pretending");
    const { created } = await createUploadStart(t, key, junk);
    const clip = await waitForClip(t, key, created.job.id, ["done", "failed", "refused"]);
    expect(clip.status).toBe("failed");
    expect(clip.error).toMatch(/image/i);
    expect(await balances(t, key)).toBe(1000);
    const refunds = await t.deps.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("wallet_id", "=", walletId)
      .where("kind", "=", "refund")
      .execute();
    expect(refunds).toHaveLength(1);
  });

  it("makes byte-identical clips from the same image, prompt and seed", async () => {
    if (!first) throw new Error("needs the first test's clip");
    const { key } = await t.newWallet(1000);
    const { created } = await createUploadStart(t, key, first.image, { seed: 42 });
    const done = await waitForClip(t, key, created.job.id, ["done", "failed", "refused"]);
    const again = Buffer.from(await (await t.fetchUrl(done.download_url)).arrayBuffer());
    expect(again.equals(first.bytes)).toBe(true);
  });
});

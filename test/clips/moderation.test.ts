/** The image half of the content rule through the real nsfwjs classifier (no stub). */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNsfwjsClassifier } from "../../src/engines/moderation/image-classifier.js";
import type { JobSystem } from "../../src/workers/supervisor.js";
import {
  balances,
  type ClipTestApp,
  createClipTestApp,
  createUploadStart,
  imageGone,
  startClipWorkers,
  waitForClip,
} from "./helpers.js";

const FLAGGED = fileURLToPath(new URL("../fixtures/moderation/flagged.png", import.meta.url));

let t: ClipTestApp;
let jobs: JobSystem;
beforeAll(async () => {
  t = await createClipTestApp({ classifier: createNsfwjsClassifier() });
  jobs = await startClipWorkers(t);
});
afterAll(async () => {
  await jobs.stop(5_000);
  await t.close();
});

describe("image content rule (nsfwjs)", () => {
  it("refuses the flagged fixture and refunds balance and key allowance", async () => {
    const owner = await t.newWallet(1000);
    const agent = await t.newAgentKey(owner.key, 300);
    const image = await readFile(FLAGGED);
    const { created } = await createUploadStart(t, agent.key, image, { content_type: "image/png" });
    const clip = await waitForClip(
      t,
      agent.key,
      created.job.id,
      ["done", "failed", "refused"],
      60_000,
    );
    expect(clip.status).toBe("refused");
    expect(["sexual", "nudity"]).toContain(clip.refused);
    expect(clip.video_url).toBeUndefined();
    expect(await balances(t, owner.key)).toBe(1000);
    const asAgent = await t.call("GET", "/wallet", { key: agent.key });
    expect(asAgent.body.wallet.agent_key.remaining_cents).toBe(300);
    expect(await imageGone(t, clip.id)).toBe(true);
  });
});

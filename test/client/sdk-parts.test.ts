/**
 * `@kinora/client`'s `uploadRestoreParts` as a caller runs it: `createKinora` against a served
 * kinora that takes files above 5 MiB in 5 MiB parts (local store). Each part's report asks
 * `brief: true`, so the server answers the counts and not every part's record and the missing
 * list, which grow with every part (747 KB a report at 9,347 parts without it): a client that
 * stopped asking would only grow its uploads' traffic again, which nothing else would notice.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKinora } from "../../packages/client/src/index.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { tempDir } from "../restore/media.js";
import { type ServedApp, serveTestApp } from "../served.js";

const MIB = 1024 * 1024;
const SIZE = 2 * 5 * MIB + 333;

let s: ServedApp;
let file: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  s = await serveTestApp({
    features: [restoreFeature({ noExecutor: true })],
    env: { UPLOAD_SINGLE_MAX_BYTES: "5MiB", UPLOAD_PART_BYTES: "5MiB" },
  });
  const tmp = await tempDir();
  cleanup = tmp.cleanup;
  file = path.join(tmp.dir, "tape.avi");
  await writeFile(file, randomBytes(SIZE));
});
afterAll(async () => {
  await s?.close();
  await cleanup?.();
});

describe("the SDK's upload in parts", () => {
  it("reports each part briefly and is answered with the counts alone", async () => {
    const wallet = await s.t.newWallet(5000);
    const reports: { body: Record<string, unknown>; answer: Record<string, unknown> }[] = [];
    const recording: typeof fetch = async (input, init = {}) => {
      const res = await fetch(input, init);
      if (init.method === "POST" && String(input).endsWith("/upload/arrived")) {
        reports.push({
          body: JSON.parse(String(init.body)),
          answer: (await res.clone().json()) as Record<string, unknown>,
        });
      }
      return res;
    };
    const kinora = createKinora({ baseUrl: s.url, apiKey: wallet.key, fetch: recording });
    const created = await kinora.createRestore({
      duration_sec: 60,
      quality: "faithful",
      filename: "tape.avi",
      content_type: "video/x-msvideo",
      size: SIZE,
    });
    expect(created.upload?.part_count).toBe(3);

    const result = await kinora.uploadRestoreParts(created.job.id, file);
    expect(result.sent).toEqual([1, 2, 3]);

    expect(reports).toHaveLength(3);
    for (const { body, answer } of reports) {
      expect(body.brief).toBe(true);
      const upload = answer.upload as Record<string, unknown>;
      expect(upload).toHaveProperty("received_parts");
      expect(upload).not.toHaveProperty("parts");
      expect(upload).not.toHaveProperty("missing");
    }
    // The state itself still answers in full for whoever asks (a resume, `kinora get`).
    const state = await kinora.getRestoreUpload({ id: created.job.id });
    expect(state.upload).toMatchObject({ received_parts: 3, missing: [] });
  });
});

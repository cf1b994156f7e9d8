/**
 * `kinora get`, `kinora jobs` and `kinora cancel` on a kind the CLI's code never names: the
 * preview (`pv_…`), which the CLI knows only from the SDK's generated list of kinds. A preview
 * made over REST is listed beside a clip, read with the generic lines, followed to its end and
 * cancelled — as a subprocess against a real server whose in-process worker runs the preview.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { damagedClip } from "../preview/media.js";
import { type CliServer, scratchDir, startCliServer } from "./harness.js";

let s: CliServer;
const media = scratchDir();
let video: { path: string; sizeBytes: number };

beforeAll(async () => {
  [s, video] = await Promise.all([startCliServer(), damagedClip(media.dir, 2, 0)]);
});
afterAll(async () => {
  await s?.close();
  media.remove();
});

/** POST /preview/jobs for `key`: the preview's id, waiting for its file. */
async function newPreview(key: string): Promise<{ id: string; upload: Record<string, unknown> }> {
  const created = await s.t.call("POST", "/preview/jobs", {
    key,
    body: { size: video.sizeBytes, content_type: "video/mp4" },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { id: created.body.job.id, upload: created.body };
}

describe("a kind the CLI's code never names (previews)", () => {
  it("is listed by kinora jobs beside the others, and cancelled by kinora cancel", async () => {
    const wallet = await s.t.newWallet(1000);
    const home = s.signIn(wallet.key);
    const clip = await s.t.call("POST", "/motion/jobs", {
      key: wallet.key,
      body: { prompt: "calm lake", content_type: "image/jpeg", image_bytes: 1000 },
    });
    expect(clip.status).toBe(200);
    s.t.clock.advance(1000); // the server's clock stands still: the preview is a second newer
    const { id } = await newPreview(wallet.key);

    const listed = await s.runCli(["jobs"], { home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s+preview\\s+awaiting_upload\\s+\\$0\\.00`));
    expect(listed.stdout).toMatch(new RegExp(`${clip.body.job.id}\\s+clip\\s+awaiting_upload`));
    const json = JSON.parse((await s.runCli(["jobs", "--json"], { home })).stdout);
    // Newest first: the preview was made after the clip.
    expect(json.jobs.map((j: { id: string; kind: string }) => `${j.kind} ${j.id}`)).toEqual([
      `preview ${id}`,
      `clip ${clip.body.job.id}`,
    ]);

    const shown = await s.runCli(["get", id], { home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`${id}  preview  waiting for the upload`);
    expect(shown.stdout).toContain("Price     free");
    expect(shown.stdout).toMatch(/Expires {3}\S+: upload the file by then or the job expires/);

    const cancelled = await s.runCli(["cancel", id], { home });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe(`Cancelled ${id}; nothing was charged for it.\n`);
    const read = await s.t.call("GET", `/preview/jobs/${id}`, { key: wallet.key });
    expect(read.body.job.status).toBe("cancelled");
    const again = await s.runCli(["cancel", id], { home });
    expect(again.stdout).toBe(
      `${id} was already cancelled; it cost nothing. Nothing changed now.\n`,
    );
  });

  it("is followed to its end by kinora get --follow, with the key its read needs", async () => {
    const wallet = await s.t.newWallet(0);
    const home = s.signIn(wallet.key);
    const { id, upload } = await newPreview(wallet.key);
    const put = await fetch(String(upload.upload_url), {
      method: "PUT",
      headers: upload.upload_headers as Record<string, string>,
      body: new Uint8Array(readFileSync(video.path)),
    });
    expect(put.status).toBeLessThan(300);
    const started = await s.t.call("POST", `/preview/jobs/${id}/start`, { key: wallet.key });
    expect(started.status, JSON.stringify(started.body)).toBe(200);

    const followed = await s.runCli(["get", id, "--follow", "--json"], { home });
    expect(followed.code, followed.stderr).toBe(0);
    expect(JSON.parse(followed.stdout).job).toMatchObject({ id, status: "done" });
    // A preview's read needs a key: without one the CLI says how to sign in, before any call.
    const anonymous = await s.runCli(["get", id], { env: { KINORA_SERVER: s.url } });
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toContain("This needs a key");
  }, 120_000);
});

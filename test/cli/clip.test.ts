/**
 * `kinora clip`, `get` and `cancel` as subprocesses against a real server on 127.0.0.1 whose
 * in-process worker runs the CPU clip engine: a clip made and saved, a refused prompt (exit 3,
 * nothing charged), Ctrl-C during the image upload, and cancelling a clip by id.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeImage } from "../clips/helpers.js";
import { balanceOf, type CliServer, scratchDir, startCliServer } from "./harness.js";

let s: CliServer;
const media = scratchDir();
const image = path.join(media.dir, "harbour.jpg");

beforeAll(async () => {
  [s] = await Promise.all([
    startCliServer(),
    makeImage(640, 480, 200).then((bytes) => writeFile(image, bytes)),
  ]);
});
afterAll(async () => {
  await s?.close();
  media.remove();
});

async function signedIn(cents = 1000) {
  const wallet = await s.t.newWallet(cents);
  return { home: s.signIn(wallet.key), ...wallet };
}

const clipCount = async (walletId: string) =>
  (
    await s.t.platform.db
      .selectFrom("clips")
      .select("id")
      .where("wallet_id", "=", walletId)
      .execute()
  ).length;

describe("kinora clip", () => {
  it("prices, uploads, follows and saves a clip next to the image", async () => {
    const { home, walletId } = await signedIn();
    const res = await s.runCli(
      [
        "clip",
        image,
        "slow push in, gulls and waves",
        "--size",
        "720p",
        "--seed",
        "7",
        "--yes",
        "--json",
      ],
      { home },
    );
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout);
    expect(doc.job).toMatchObject({ status: "done", size: "720p", seed: 7, amount_cents: 99 });
    // Named from the image and the prompt, safe characters only, with the id's tail.
    expect(path.basename(doc.output)).toBe(
      `harbour_slow-push-in-gulls-and-waves_clip_${doc.job.id.slice(-4)}.mp4`,
    );
    expect(path.dirname(doc.output)).toBe(media.dir);
    expect(existsSync(doc.output)).toBe(true);
    expect(doc.size_bytes).toBeGreaterThan(10_000);
    expect(await balanceOf(s, walletId)).toBe(1000 - 99);

    const got = await s.runCli(["get", doc.job.id, "--json"], { home });
    expect(JSON.parse(got.stdout).job).toMatchObject({ id: doc.job.id, status: "done" });
    const shown = await s.runCli(["get", doc.job.id], { home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("Prompt    slow push in, gulls and waves");
    expect(shown.stdout).toContain("Clip      5 s 720p, seed 7");
    expect(shown.stdout).toContain("Price     $0.99");
    expect(shown.stdout).toContain(`Download  kinora get ${doc.job.id} --download PATH`);
    // The whole state: how long the files are kept, and the result's own links.
    expect(shown.stdout).toMatch(/Kept {6}until \d{4}-\d\d-\d\dT.*, then its files are deleted/);
    expect(shown.stdout).toMatch(/Link {6}http:\/\/127\.0\.0\.1:\d+\/\S+ \(temporary\)/);
    // get --download into a directory: the clip's own name there, never over an earlier file.
    const again = await s.runCli(["get", doc.job.id, "--download", media.dir, "--json"], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(path.basename(JSON.parse(again.stdout).output)).toBe(
      `slow-push-in-gulls-and-waves_clip_${doc.job.id.slice(-4)}.mp4`,
    );
  });

  it("with an image URL the server fetches the image; nothing is uploaded", async () => {
    const { home, walletId } = await signedIn();
    s.faults.media.set("lake.jpg", await makeImage(480, 360, 90));
    const out = path.join(media.dir, "from-url.mp4");
    const res = await s.runCli(
      [
        "clip",
        `${s.url}/test-media/lake.jpg`,
        "gentle drift",
        "--loop",
        "--out",
        out,
        "--yes",
        "--json",
      ],
      { home },
    );
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout);
    expect(doc.job).toMatchObject({
      status: "done",
      loop: true,
      image_url: `${s.url}/test-media/lake.jpg`,
    });
    expect(doc.output).toBe(out);
    expect(existsSync(out)).toBe(true);
    expect(await balanceOf(s, walletId)).toBe(1000 - 59);
  });

  it("a refused prompt prints the refusal code, charges nothing and exits 3", async () => {
    const { home, walletId } = await signedIn();
    const human = await s.runCli(["clip", image, "a nude woman on the beach", "--yes"], { home });
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/refused by the content rule \(nudity\).*Nothing was charged\./);
    const json = await s.runCli(["clip", image, "a nude woman on the beach", "--yes", "--json"], {
      home,
    });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout).error).toMatchObject({
      status: 422,
      refused: "nudity",
      charged: false,
      exit_code: 3,
    });
    expect(await balanceOf(s, walletId)).toBe(1000);
    expect(await clipCount(walletId)).toBe(0);
  });

  it("Ctrl-C during the image upload cancels the clip and refunds it", async () => {
    const { home, walletId } = await signedIn();
    const held = new Promise<void>((resolve) => {
      s.faults.onHold = resolve;
    });
    s.faults.uploads.push("hold");
    const cli = s.spawnCli(["clip", image, "gentle drift", "--yes"], { home });
    const [, id] = await cli.waitFor(/Created (clip_\w+)/);
    await held;
    cli.child.kill("SIGINT");
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(130);
    expect(res.stderr).toContain(
      `Upload stopped. Cancelled ${id}; $0.59 was refunded to your balance`,
    );
    expect(await balanceOf(s, walletId)).toBe(1000);
  });

  it("kinora cancel refunds a clip whose image never arrived; a second cancel is harmless", async () => {
    const { home, key, walletId } = await signedIn();
    const made = await s.t.call("POST", "/motion/jobs", {
      key,
      body: { prompt: "calm lake", content_type: "image/jpeg", image_bytes: 1000 },
    });
    expect(made.status).toBe(200);
    const id = made.body.job.id as string;
    const res = await s.runCli(["cancel", id], { home });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Cancelled ${id}; $0.59 was refunded`);
    expect(await balanceOf(s, walletId)).toBe(1000);
    // A second cancel moves no money, and says the refund happened earlier.
    const again = await s.runCli(["cancel", id], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      `${id} was already cancelled; its $0.59 was refunded then. Nothing changed now.\n`,
    );
    expect(again.stdout).not.toContain("Cancelled");
    const json = await s.runCli(["cancel", id, "--json"], { home });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      job: { status: "cancelled" },
      already_cancelled: true,
      refunded_now_cents: 0,
    });
    expect(await balanceOf(s, walletId)).toBe(1000);
  });
});

/**
 * `kinora restore` as a subprocess against a real server on 127.0.0.1 whose in-process workers
 * run the real ffmpeg engine: a whole restore whose upload connection drops once, Ctrl-C during
 * and after the upload, a checkout-paid restore without a key, the no-terminal rule, not enough
 * balance, and the progress bar drawn on a pseudo-terminal.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffprobeDuration, makeVideo } from "../restore/helpers.js";
import {
  balanceOf,
  type CliServer,
  payTestCheckout,
  scratchDir,
  startCliServer,
} from "./harness.js";
import { runCliInPty, stripAnsi } from "./pty.js";

let s: CliServer;
const media = scratchDir();
let video: { path: string; sizeBytes: number };

beforeAll(async () => {
  [s, video] = await Promise.all([startCliServer(), makeVideo(media.dir, 1.5, "home movie.mp4")]);
});
afterAll(async () => {
  await s?.close();
  media.remove();
});

async function signedIn(cents = 2000) {
  const wallet = await s.t.newWallet(cents);
  return { home: s.signIn(wallet.key), ...wallet };
}

const jobRow = (id: string) =>
  s.t.platform.db.selectFrom("restore_jobs").selectAll().where("id", "=", id).executeTakeFirst();

describe("kinora restore", () => {
  it("restores a video end to end with --yes --json, re-sending the upload after the connection drops", async () => {
    const { home, walletId } = await signedIn();
    s.faults.uploads.push("drop");
    const res = await s.runCli(
      ["restore", video.path, "--quality", "standard", "--yes", "--json"],
      {
        home,
      },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe("");
    const doc = JSON.parse(res.stdout);
    // The first PUT was cut off after 16 KB; the whole file went again to the same URL.
    expect(doc.upload_attempts).toBe(2);
    expect(doc.job).toMatchObject({ status: "done", quality: "faithful", amount_cents: 299 });
    // The default name sits next to the input.
    expect(doc.output).toBe(path.join(media.dir, "home movie-restored.mp4"));
    expect(doc.size_bytes).toBeGreaterThan(10_000);
    expect(await ffprobeDuration(doc.output)).toBeCloseTo(1.5, 0);
    expect(await balanceOf(s, walletId)).toBe(2000 - 299);

    const [listed, human] = await Promise.all([
      s.runCli(["jobs", "--json"], { home }),
      s.runCli(["jobs"], { home }),
    ]);
    expect(JSON.parse(listed.stdout).jobs.map((j: { id: string }) => j.id)).toEqual([doc.job.id]);
    expect(human.stdout).toMatch(new RegExp(`${doc.job.id}\\s+restore\\s+done\\s+\\$2\\.99`));
    // A whole restore through real ffmpeg and three CLI processes: over 60 s once at load 24.
  }, 120_000);

  it("Ctrl-C during the upload cancels the job, refunds it, says so and exits 130", async () => {
    const { home, walletId } = await signedIn();
    const held = new Promise<void>((resolve) => {
      s.faults.onHold = resolve;
    });
    s.faults.uploads.push("hold");
    const cli = s.spawnCli(["restore", video.path, "--fade", "not-faded", "--yes"], { home });
    const [, id] = await cli.waitFor(/Created (rj_\w+)/);
    await held;
    expect(await balanceOf(s, walletId)).toBe(2000 - 499);
    // What the person said of the tape went with the job.
    expect((await jobRow(id as string))?.fade).toBe("not_faded");
    cli.child.kill("SIGINT");
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(130);
    expect(res.stderr).toContain(
      `Upload stopped. Cancelled ${id}; $4.99 was refunded to your balance`,
    );
    expect((await jobRow(id as string))?.status).toBe("cancelled");
    expect(await balanceOf(s, walletId)).toBe(2000);
  });

  it("Ctrl-C after the upload leaves the job running and says how to pick it up again", async () => {
    const { home } = await signedIn();
    const cli = s.spawnCli(["restore", video.path, "-q", "standard", "--yes"], { home });
    const [, id] = await cli.waitFor(/Created (rj_\w+)/);
    await cli.waitFor(/Uploaded in/);
    cli.child.kill("SIGINT");
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(130);
    expect(res.stderr).toContain(
      `Stopped following. ${id} was paid ($2.99) and keeps running on the server; if it fails it is refunded in full.`,
    );
    expect(res.stderr).toContain(`kinora get ${id} --download PATH`);
    const out = path.join(media.dir, "picked-up.mp4");
    const picked = await s.runCli(["get", id as string, "--download", out, "--json"], { home });
    expect(picked.code, picked.stderr).toBe(0);
    expect(JSON.parse(picked.stdout)).toMatchObject({ output: out, job: { status: "done" } });
    expect(existsSync(out)).toBe(true);
  });

  it("pays this job alone by checkout, sending no key though one is saved, and restores once paid", async () => {
    const { home, walletId } = await signedIn();
    const seenBefore = s.faults.seen.length;
    const cli = s.spawnCli(
      [
        "restore",
        video.path,
        "-q",
        "standard",
        "--pay-with",
        "checkout",
        "--email",
        "me@example.com",
        "--yes",
        "--json",
      ],
      { home },
    );
    const [, link] = await cli.waitFor(/Pay \$2\.99 here to start the restore: (\S+)/);
    await payTestCheckout(link as string);
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout);
    expect(doc.job).toMatchObject({ status: "done", paid_from_balance: false, amount_cents: 299 });
    expect(existsSync(doc.output)).toBe(true);
    // The job's own calls carried no key: create, checkout and every read of it.
    const jobCalls = s.faults.seen
      .slice(seenBefore)
      .filter((r) => r.url === "/cloud/jobs" || r.url.startsWith(`/cloud/jobs/${doc.job.id}`));
    expect(jobCalls.map((r) => `${r.method} ${r.url.split("?")[0]}`)).toContain("POST /cloud/jobs");
    expect(jobCalls.filter((r) => r.authorization)).toEqual([]);
    expect(await balanceOf(s, walletId)).toBe(2000);
    const noEmail = await s.runCli(["restore", video.path, "--pay-with", "checkout", "--yes"], {
      home,
    });
    expect(noEmail.code).toBe(2);
    expect(noEmail.stderr).toContain("--email is required with --pay-with checkout");
  });

  it("without a terminal and without --yes it refuses to spend (exit 2) and creates nothing", async () => {
    const { home, walletId } = await signedIn();
    const res = await s.runCli(["restore", video.path], { home });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /Restore home movie\.mp4 \(0:02, 320×240, .*\) at Enhanced for \$4\.99.*pass --yes/,
    );
    // Display names and API names, in any case; a wrong one lists them.
    const max = await s.runCli(["restore", video.path, "-q", "Studio-Max"], { home });
    expect(max.code).toBe(2);
    expect(max.stderr).toMatch(/at Studio Max for \$8\.99/);
    const wrong = await s.runCli(["restore", video.path, "-q", "premium"], { home });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      '--quality must be standard, enhanced or studio-max (the API names faithful, enhanced, enhanced_max work too, in any case); "premium" is none of them.',
    );
    // A fade hint Standard would ignore, or one that is no hint, is refused before any price.
    const standardFade = await s.runCli(
      ["restore", video.path, "-q", "standard", "--fade", "faded"],
      { home },
    );
    expect(standardFade.code).toBe(2);
    expect(standardFade.stderr).toContain("--fade goes with --quality enhanced or studio-max");
    expect(standardFade.stderr).not.toMatch(/\$2\.99/);
    const oddFade = await s.runCli(["restore", video.path, "--fade", "very"], { home });
    expect(oddFade.code).toBe(2);
    expect(oddFade.stderr).toContain('--fade must be faded, not-faded or auto; "very" is none');
    expect(await balanceOf(s, walletId)).toBe(2000);
    const jobs = await s.t.platform.db
      .selectFrom("restore_jobs")
      .select("id")
      .where("wallet_id", "=", walletId)
      .execute();
    expect(jobs).toEqual([]);
  });

  it("not enough balance: exit 3 saying how to top up, before anything is created", async () => {
    const { home, walletId } = await signedIn(100);
    const res = await s.runCli(["restore", video.path, "--yes", "--json"], { home });
    expect(res.code).toBe(3);
    expect(JSON.parse(res.stdout).error).toMatchObject({
      code: "needs_topup",
      needs_topup: true,
      price_cents: 499,
    });
    expect(res.stderr).toContain("The balance is $1.00, $3.99 short of the price.");
    expect(res.stderr).toContain("Top up first: kinora topup 5");
    expect(await balanceOf(s, walletId)).toBe(100);
  });

  it("draws progress bars on a terminal: the download bar's percentage advances", async () => {
    const { home } = await signedIn();
    s.faults.downloadBytesPerSec = 40_000;
    try {
      const out = path.join(media.dir, "pty.mp4");
      const { code, output } = await runCliInPty(
        ["restore", video.path, "-q", "standard", "--out", out, "--yes"],
        { HOME: home, XDG_CONFIG_HOME: home },
      );
      expect(code, output).toBe(0);
      const plain = stripAnsi(output);
      for (const bar of ["upload", "restore", "download"]) expect(plain).toContain(`${bar} `);
      // The restore bar carries the server's estimate (queue.eta_seconds), not the time waited.
      expect(plain).toMatch(/restore +\[[^\]]*\] \d+% \| [^|]+ \| (about \d+[hms]|any moment now)/);
      const percents = [...plain.matchAll(/download \[[^\]]*\] (\d+)%/g)].map((m) => Number(m[1]));
      const distinct = [...new Set(percents)];
      expect(distinct.length, plain).toBeGreaterThanOrEqual(3);
      expect(distinct).toEqual([...distinct].sort((a, b) => a - b));
      expect(distinct.at(-1)).toBe(100);
      expect(plain).toMatch(/\d+(\.\d+)? KB\/s/);
      expect(plain).toContain(`Restored video saved to ${out}`);
    } finally {
      s.faults.downloadBytesPerSec = 0;
    }
  });
});

/**
 * `kinora restore` of a file the server takes in parts (UPLOAD_SINGLE_MAX_BYTES and
 * UPLOAD_PART_BYTES at 5 MiB, a 23 MB video in 5 parts), as a subprocess against a real server
 * whose workers run the real ffmpeg engine: killed (SIGKILL, a crash) after two parts arrived,
 * `kinora jobs` and `kinora get` show how far the upload got, and the same command run again
 * finds the same job — charged once — sends only the missing parts and restores the video.
 * Ctrl-C during the parts keeps the job and says how to go on. (The installed client under a
 * terminal does the same in test/cli/packed.test.ts.)
 */
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffprobeDuration } from "../restore/helpers.js";
import {
  balanceOf,
  type CliServer,
  recordedParts,
  scratchDir,
  startCliServer,
  untilPartsRecorded,
} from "./harness.js";

let s: CliServer;
const media = scratchDir();
let video: string;

/** An uncompressed 2 s 448×336 AVI: 22.6 MB in five 5 MiB parts, quick to restore. */
async function bigVideo(dir: string): Promise<string> {
  const file = path.join(dir, "tape.avi");
  const testsrc = "testsrc=size=448x336:rate=25:duration=2";
  const args = ["-v", "error", "-f", "lavfi", "-i", testsrc, "-c:v", "rawvideo"];
  await promisify(execFile)("ffmpeg", [...args, "-pix_fmt", "bgr24", "-y", file]);
  return file;
}

beforeAll(async () => {
  [s, video] = await Promise.all([
    startCliServer({ env: { UPLOAD_SINGLE_MAX_BYTES: "5MiB", UPLOAD_PART_BYTES: "5MiB" } }),
    bigVideo(media.dir),
  ]);
});
afterAll(async () => {
  await s?.close();
  media.remove();
});

const partPuts = () =>
  s.faults.seen.filter((r) => r.method === "PUT" && r.url.startsWith("/files/p/"));
const jobRow = (id: string) =>
  s.t.platform.db.selectFrom("restore_jobs").selectAll().where("id", "=", id).executeTakeFirst();

describe("kinora restore of a file sent in parts", () => {
  it("killed after two parts, run again: the same job, charged once, only the missing parts sent, restored", async () => {
    const wallet = await s.t.newWallet(3000);
    const home = s.signIn(wallet.key);
    expect(statSync(video).size).toBeGreaterThan(20 * 1024 ** 2);
    // Parts 3 and 4 are held unanswered: part 3's body may fit whole in the sockets' buffers,
    // and its lane then sends part 4 (lanes do not wait for the store's answer to go on).
    s.faults.uploads.push("pass", "pass", "hold", "hold");
    const held = new Promise<void>((resolve) => {
      s.faults.onHold = resolve;
    });
    const before = partPuts().length;
    const recordedBefore = await recordedParts(s);
    const first = s.spawnCli(
      ["restore", video, "--quality", "standard", "--yes", "--parallel", "1"],
      {
        home,
      },
    );
    await held;
    // Part 3 is on the wire while part 2's answer and report may still be under way.
    await untilPartsRecorded(s, recordedBefore, 2);
    first.child.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");
    expect(partPuts().length - before).toBeGreaterThanOrEqual(3);
    expect(partPuts().length - before).toBeLessThanOrEqual(4);
    // A second hold this run did not reach must not hold the next test's PUT.
    s.faults.uploads.splice(0);
    const id = /(rj_[A-Za-z0-9]+)/.exec(killed.stdout + killed.stderr)?.[1] as string;
    expect(id).toBeTruthy();
    expect((await jobRow(id))?.status).toBe("awaiting_upload");
    const charged = await balanceOf(s, wallet.walletId);
    expect(charged).toBeLessThan(3000);

    // Side by side: each is a CLI start, the slow part of this test on a busy machine.
    const [listed, got] = await Promise.all([
      s.runCli(["jobs"], { home }),
      s.runCli(["get", id], { home }),
    ]);
    expect(listed.stdout).toMatch(
      new RegExp(`${id}\\s+restore\\s+awaiting_upload \\(2 of 5 parts, `),
    );
    expect(got.stdout).toMatch(
      new RegExp(`^${id} +restore +waiting for the upload: 2 of 5 parts, 10 MB of 23 MB$`, "m"),
    );

    const resumedAt = partPuts().length;
    const again = await s.runCli(["restore", video, "--quality", "standard", "--yes", "--json"], {
      home,
    });
    expect(again.code, again.stderr).toBe(0);
    const doc = JSON.parse(again.stdout);
    expect(doc.job).toMatchObject({ id, status: "done" });
    expect(doc.resumed).toBe(true);
    expect(partPuts().length - resumedAt).toBe(3);
    expect(await balanceOf(s, wallet.walletId)).toBe(charged);
    const ledger = await s.t.platform.db
      .selectFrom("ledger_entries")
      .select("kind")
      .where("job_id", "=", id)
      .execute();
    expect(ledger.map((e) => e.kind)).toEqual(["charge"]);
    expect(await ffprobeDuration(doc.output)).toBeCloseTo(2, 0);
  });

  it("a part whose connection is cut mid-body is sent again, and the restore finishes", async () => {
    const wallet = await s.t.newWallet(3000);
    const home = s.signIn(wallet.key);
    // The second part's first PUT takes 16 KB, then the connection drops.
    s.faults.uploads.push("pass", "drop");
    const before = partPuts().length;
    const res = await s.runCli(
      ["restore", video, "--quality", "standard", "--yes", "--json", "--parallel", "1"],
      { home },
    );
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout);
    expect(doc.job.status).toBe("done");
    // Five parts and the one sent again.
    expect(partPuts().length - before).toBe(6);
    expect(await ffprobeDuration(doc.output)).toBeCloseTo(2, 0);
  });

  it("Ctrl-C during the parts keeps the job and says how to send the rest or get a refund", async () => {
    const wallet = await s.t.newWallet(3000);
    const home = s.signIn(wallet.key);
    s.faults.uploads.push("pass", "hold");
    const held = new Promise<void>((resolve) => {
      s.faults.onHold = resolve;
    });
    const run = s.spawnCli(["restore", video, "--yes", "--parallel", "1"], { home });
    await held;
    run.child.kill("SIGINT");
    const res = await run.done;
    expect(res.code).toBe(130);
    const id = /(rj_[A-Za-z0-9]+)/.exec(res.stderr)?.[1] as string;
    expect(res.stderr).toMatch(/Upload stopped\./);
    expect(res.stderr).toContain(
      "again to send the missing parts (the same job; nothing more is charged)",
    );
    expect(res.stderr).toContain(`\`kinora cancel ${id}\` for a refund`);
    expect((await jobRow(id))?.status).toBe("awaiting_upload");
    const cancelled = await s.runCli(["cancel", id, "--json"], { home });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(await balanceOf(s, wallet.walletId)).toBe(3000);
  });
});

/**
 * The `kinora` client as a person outside the repository gets it: `npm pack` of the SDK and the
 * CLI, installed from those two tarballs into an empty folder (offline: they need nothing else,
 * and nothing of the repository's node_modules is reachable from there), then run against one
 * real server — help with the server's prices, login, wallet, a restore on a machine without
 * ffprobe, and in a real terminal (a pseudo-terminal, as a person at a keyboard): a restore and
 * a clip with their progress bars and the price question answered `y`, a photo refused before
 * any price, Ctrl-C during an upload refunded and said so, and a file sent in parts (the server
 * takes parts above 5 MiB here) stopped by Ctrl-C after two parts then run again: the same job,
 * charged once, only the missing parts sent. No run prints a stack trace.
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadsFromOutside } from "../../packages/cli/bundle-check.mjs";
import { makeImage } from "../clips/helpers.js";
import { ffprobeDuration, makeVideo } from "../restore/helpers.js";
import {
  balanceOf,
  type CliServer,
  ROOT,
  recordedParts,
  startCliServer,
  untilPartsRecorded,
} from "./harness.js";
import { KEY, runCliInPty, stripAnsi } from "./pty.js";

const run = promisify(execFile);

let s: CliServer;
let dir: string;
let bin: string;
let video: { path: string; sizeBytes: number };
let tape: string;
let photo: string;

/** Bytes of every file under `p`. */
function duBytes(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((sum, name) => sum + duBytes(path.join(p, name)), 0);
}

/** Packs the SDK and the CLI and installs both tarballs, offline, into `install`. */
async function packAndInstall(install: string, packs: string): Promise<void> {
  // prepack builds each package (tsc for the SDK, esbuild for the CLI).
  await run("npm", ["pack", "-w", "@kinora/client", "-w", "kinora", "--pack-destination", packs], {
    cwd: ROOT,
  });
  writeFileSync(path.join(install, "package.json"), '{ "private": true }\n');
  const tarballs = readdirSync(packs).map((f) => path.join(packs, f));
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", ...tarballs], {
    cwd: install,
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "kinora-packed-"));
  const install = path.join(dir, "install");
  const packs = path.join(dir, "packs");
  await run("mkdir", ["-p", install, packs]);
  photo = path.join(dir, "boats.jpg");
  tape = path.join(dir, "tape.avi");
  const [server, media] = await Promise.all([
    // Files above 5 MiB go in 5 MiB parts (the 2 s video and the photo stay single uploads).
    startCliServer({ env: { UPLOAD_SINGLE_MAX_BYTES: "5MiB", UPLOAD_PART_BYTES: "5MiB" } }),
    makeVideo(dir, 2, "holiday.mp4"),
    rawVideo(tape),
    makeImage(640, 480, 200).then((bytes) => writeFileSync(photo, bytes)),
    packAndInstall(install, packs),
  ]);
  s = server;
  video = media;
  bin = path.join(install, "node_modules", ".bin", "kinora");
}, 240_000);

afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An uncompressed 448×336 AVI of 2 s: 22.6 MB, five 5 MiB parts, quick to restore. */
async function rawVideo(file: string): Promise<void> {
  const testsrc = "testsrc=size=448x336:rate=25:duration=2";
  const args = ["-v", "error", "-f", "lavfi", "-i", testsrc, "-c:v", "rawvideo"];
  await run("ffmpeg", [...args, "-pix_fmt", "bgr24", "-y", file]);
}

/** A signed-in home for a new wallet holding `cents`, and the environment pointing at it. */
async function person(cents = 2000) {
  const wallet = await s.t.newWallet(cents);
  const home = s.signIn(wallet.key);
  return { ...wallet, home, env: { HOME: home, XDG_CONFIG_HOME: home } };
}

/** Runs the installed `kinora` in a pseudo-terminal from the scratch folder. */
const inTerminal = (
  args: string[],
  env: Record<string, string>,
  typed: Parameters<typeof runCliInPty>[2] = [],
) => runCliInPty(args, env, typed, 90_000, { bin, cwd: dir });

/** Node's stack-trace lines ("    at fn (file:1:2)"), which a person must never see. */
const STACK = /^\s+at .+[:(]\d+/m;

const YES = { after: /Type y to agree/, keys: "y\r" };

describe("the packed kinora client, installed alone", () => {
  it("installs as two small packages whose bundle loads nothing it does not carry", () => {
    const modules = path.join(dir, "install", "node_modules");
    // Beside them only the SDK's optional native CRC32 for uploads in parts: its loader and
    // this platform's prebuilt binary, where the registry had one.
    const names = readdirSync(modules).filter((n) => !n.startsWith("."));
    expect(names.filter((n) => n !== "@node-rs").sort()).toEqual(["@kinora", "kinora"]);
    expect(readdirSync(path.join(modules, "@kinora"))).toEqual(["client"]);
    const native = path.join(modules, "@node-rs");
    if (names.includes("@node-rs")) {
      expect(readdirSync(native).every((n) => n.startsWith("crc32"))).toBe(true);
      expect(duBytes(native)).toBeLessThan(1_500_000);
    }
    const nativeBytes = names.includes("@node-rs") ? duBytes(native) : 0;
    expect(duBytes(modules) - nativeBytes).toBeLessThan(2_000_000);
    expect(duBytes(path.join(modules, "@kinora", "client"))).toBeLessThan(1_000_000);
    // Everything the bundle imports or requires by name is a built-in or a declared dependency
    // (the server package is optional: it is looked for, and its absence explained).
    const cli = path.join(modules, "kinora");
    const pkg = JSON.parse(readFileSync(path.join(cli, "package.json"), "utf8"));
    const code = readFileSync(path.join(cli, "dist", "kinora.js"), "utf8");
    const allowed = [...Object.keys(pkg.dependencies ?? {}), "@kinora/server"];
    expect(loadsFromOutside(code, allowed)).toEqual([]);
    expect(loadsFromOutside('x = require2("cli-progress")', allowed)).toEqual(["cli-progress"]);
  });

  it("answers --help with the server's prices, and says honestly how to get the server", async () => {
    const help = await s.runCli(["--help"], { bin, cwd: dir });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^ {2}restore +\S/m);
    const prices = await s.runCli(["restore", "--help"], {
      bin,
      cwd: dir,
      env: { KINORA_SERVER: s.url },
    });
    expect(prices.code, prices.stderr).toBe(0);
    expect(prices.stdout).toContain(`Qualities and prices on ${s.url}`);
    expect(prices.stdout).toMatch(/^ {2}standard +\$2\.99, then \$0\.50\/min$/m);
    expect(prices.stdout).toMatch(/^ {2}enhanced +\$4\.99, then \$0\.90\/min {2}\(default\)$/m);
    expect(prices.stdout).toMatch(/^ {2}studio-max +\$8\.99, then \$1\.60\/min$/m);
    const offline = await s.runCli(["help", "restore", "--server", "http://127.0.0.1:9"], {
      bin,
      cwd: dir,
    });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toContain("Prices: the server did not answer.");
    expect(offline.stdout).not.toMatch(/\$\d/);
    const serve = await s.runCli(["serve"], { bin, cwd: dir });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain("is not on the npm registry");
    expect(serve.stderr).toContain("npm pack -w @kinora/server");
    expect(serve.stderr).not.toMatch(/npm install -g @kinora\/server/);
  });

  it("logs in, shows the wallet, and restores a video without ffprobe on the machine", async () => {
    const wallet = await s.t.newWallet(2000);
    const home = s.newHome();
    // No ffprobe (nor anything else) on PATH: node runs by its own path.
    const env = { PATH: path.join(dir, "empty-path") };
    const login = await s.runCli(["login", "--server", s.url], {
      bin,
      cwd: dir,
      home,
      env,
      input: `${wallet.key}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const shown = await s.runCli(["wallet", "--json"], { bin, cwd: dir, home, env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).wallet).toMatchObject({ balance_cents: 2000 });

    const restored = await s.runCli(
      ["restore", video.path, "--quality", "standard", "--yes", "--json"],
      { bin, cwd: dir, home, env },
    );
    expect(restored.code, restored.stderr).toBe(0);
    const doc = JSON.parse(restored.stdout);
    expect(doc.job).toMatchObject({ status: "done", amount_cents: 299 });
    expect(existsSync(doc.output)).toBe(true);
    expect(await ffprobeDuration(doc.output)).toBeCloseTo(2, 0);
    expect(await balanceOf(s, wallet.walletId)).toBe(2000 - 299);

    // An empty file and a text file are refused before any price, with ffprobe absent too.
    const empty = path.join(dir, "empty.mp4");
    const text = path.join(dir, "notes.mov");
    writeFileSync(empty, "");
    writeFileSync(text, "tape 2: the boats, the harbour, grandma waving\n".repeat(40));
    for (const [file, said] of [
      [empty, "empty.mp4 is empty (0 bytes)"],
      [text, "notes.mov is a text file, not a video."],
    ] as const) {
      const refused = await s.runCli(["restore", file, "--yes"], { bin, cwd: dir, home, env });
      expect(refused.code, file).toBe(1);
      expect(refused.stderr).toContain(said);
      expect(refused.stderr).toContain("Nothing was charged.");
      expect(refused.stderr).not.toMatch(STACK);
    }
    expect(await balanceOf(s, wallet.walletId)).toBe(2000 - 299);
  });
});

describe("the packed kinora client in a terminal", () => {
  it("restores a video: the price asked and answered y, bars drawn, the result downloaded", async () => {
    const me = await person();
    const out = path.join(dir, "holiday-terminal.mp4");
    const { code, output } = await inTerminal(
      ["restore", video.path, "-q", "Standard", "--out", out],
      me.env,
      [YES],
    );
    const screen = stripAnsi(output);
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/Restore holiday\.mp4 \(0:02, 320×240, .*\) at Standard for \$2\.99/);
    expect(screen).toMatch(/upload +\[[█░]+\] \d+%/);
    expect(screen).toMatch(/restore +\[[█░]+\] \d+%/);
    expect(screen).toMatch(/download +\[[█░]+\] 100%/);
    expect(screen).toContain(`Restored video saved to ${out}`);
    expect(screen).not.toMatch(STACK);
    expect(await ffprobeDuration(out)).toBeCloseTo(2, 0);
    expect(await balanceOf(s, me.walletId)).toBe(2000 - 299);
  });

  it("makes a clip from a photo: asked, bars drawn, saved", async () => {
    const me = await person();
    const out = path.join(dir, "boats-clip.mp4");
    const { code, output } = await inTerminal(
      ["clip", photo, "slow push in, gulls and waves", "--out", out],
      me.env,
      [YES],
    );
    const screen = stripAnsi(output);
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/Make a 5-second 480p clip from boats\.jpg .* for \$0\.59/);
    expect(screen).toMatch(/upload +\[[█░]+\] \d+%/);
    expect(screen).toMatch(/clip +\[[█░]+\] \d+%/);
    expect(screen).toContain(`Clip saved to ${out}`);
    expect(screen).not.toMatch(STACK);
    expect(await ffprobeDuration(out)).toBeCloseTo(5, 0);
    expect(await balanceOf(s, me.walletId)).toBe(2000 - 59);
  });

  it("refuses a photo given to restore before any price, charging nothing", async () => {
    const me = await person();
    const { code, output } = await inTerminal(["restore", photo], me.env, [YES]);
    const screen = stripAnsi(output);
    expect(code, screen).toBe(1);
    expect(screen).toContain("boats.jpg is a still image (JPEG), not a video");
    expect(screen).toContain('kinora clip boats.jpg "a prompt"');
    expect(screen).toContain("Nothing was charged.");
    expect(screen).not.toMatch(/Type y to agree/);
    expect(screen).not.toMatch(STACK);
    expect(await balanceOf(s, me.walletId)).toBe(2000);
  });

  it("Ctrl-C during the upload: the job is cancelled, and the refund said", async () => {
    const me = await person();
    s.faults.uploads.push("hold");
    const { code, output } = await inTerminal(["restore", video.path, "-q", "standard"], me.env, [
      YES,
      { after: /Uploading holiday\.mp4/, keys: KEY.ctrlC },
    ]);
    const screen = stripAnsi(output);
    expect(code, screen).toBe(130);
    // A held upload has moved nothing: the bar's estimate says so, not "ETA NFs".
    expect(screen).not.toMatch(/ETA NF/);
    expect(screen).toMatch(
      /Upload stopped\. Cancelled rj_\w+; \$2\.99 was refunded to your balance \(balance \$20\.00\)\./,
    );
    expect(screen).not.toMatch(STACK);
    expect(await balanceOf(s, me.walletId)).toBe(2000);
  });

  it("a file in parts stopped by Ctrl-C after two parts, run again: the same job, charged once, only the missing parts sent", async () => {
    const me = await person(3000);
    const partPuts = () =>
      s.faults.seen.filter((r) => r.method === "PUT" && r.url.startsWith("/files/p/")).length;
    // Whatever an earlier test left unused (its Ctrl-C may come before its held PUT) goes.
    // Parts 3 and 4 held unanswered: part 3's body may fit whole in the sockets' buffers, and
    // its lane then sends part 4 (lanes do not wait for the store's answer to go on).
    s.faults.uploads.splice(0, s.faults.uploads.length, "pass", "pass", "hold", "hold");
    const held = new Promise<void>((resolve) => {
      s.faults.onHold = resolve;
    });
    const before = partPuts();
    const recordedBefore = await recordedParts(s);
    // Part 3 is on the wire while part 2's answer and report may still be under way.
    const twoRecorded = held.then(() => untilPartsRecorded(s, recordedBefore, 2));
    const args = ["restore", tape, "-q", "standard", "--parallel", "1"];
    const stopped = await inTerminal(args, me.env, [YES, { when: twoRecorded, keys: KEY.ctrlC }]);
    const first = stripAnsi(stopped.output);
    expect(stopped.code, first).toBe(130);
    expect(first).toMatch(/Uploading tape\.avi \(23 MB\) in 5 parts, 1 at once…/);
    // Two parts arrived and one or two more on the wire: 10 MB and more, never the whole.
    expect(first).toMatch(/upload +\[[█░]+\] \d+% \| (1\d|2[0-2])\.?\d? MB of 23 MB \| /);
    expect(first).toMatch(
      /Upload stopped\. .*again to send the missing parts \(the same job; nothing more is charged\)/s,
    );
    expect(first).not.toMatch(STACK);
    expect(partPuts() - before).toBeGreaterThanOrEqual(3);
    expect(partPuts() - before).toBeLessThanOrEqual(4);
    s.faults.uploads.splice(0);
    const id = /(rj_[A-Za-z0-9]+)/.exec(first)?.[1] as string;
    const charged = await balanceOf(s, me.walletId);
    expect(charged).toBeLessThan(3000);

    const jobs = stripAnsi((await inTerminal(["jobs"], me.env)).output);
    expect(jobs).toMatch(new RegExp(`${id}\\s+restore\\s+awaiting_upload \\(2 of 5 parts, `));

    const out = path.join(dir, "tape-restored.mp4");
    const resumedAt = partPuts();
    const again = await inTerminal(["restore", tape, "-q", "standard", "--out", out], me.env, [
      YES,
    ]);
    const second = stripAnsi(again.output);
    expect(again.code, second).toBe(0);
    expect(second).toContain(`Resuming ${id} for tape.avi: 2 of 5 parts (10 MB) arrived before`);
    expect(second).not.toMatch(/Type y to agree/);
    expect(second).toMatch(/already there, sending the rest/);
    // The bar starts where the first run stopped.
    expect(second).toMatch(/sending the rest…\s*upload +\[[█░]+\] 4\d% \| 10 MB of 23 MB/);
    expect(second).toMatch(/upload +\[[█░]+\] 100% \| 23 MB of 23 MB/);
    expect(second).toContain(`Restored video saved to ${out}`);
    expect(second).not.toMatch(STACK);
    expect(partPuts() - resumedAt).toBe(3);
    expect(await balanceOf(s, me.walletId)).toBe(charged);
    const ledger = await s.t.platform.db
      .selectFrom("ledger_entries")
      .select("kind")
      .where("job_id", "=", id)
      .execute();
    expect(ledger.map((e) => e.kind)).toEqual(["charge"]);
    expect(await ffprobeDuration(out)).toBeCloseTo(2, 0);
  });
});

/**
 * The `kinora` client as a person outside the repository gets it: `npm pack` of the SDK and the
 * CLI, installed from those two tarballs into an empty folder (offline: they need nothing else,
 * and nothing of the repository's node_modules is reachable from there), then run against a real
 * server — help, login, wallet, and a whole restore on a machine without ffprobe (the length is
 * read from the file's own header). Also checks the installed size stays small.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffprobeDuration, makeVideo } from "../restore/helpers.js";
import { balanceOf, type CliServer, ROOT, startCliServer } from "./harness.js";

const run = promisify(execFile);

let s: CliServer;
let dir: string;
let bin: string;
let video: { path: string; sizeBytes: number };

/** Bytes of every file under `p`. */
function duBytes(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((sum, name) => sum + duBytes(path.join(p, name)), 0);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "kinora-packed-"));
  const install = path.join(dir, "install");
  const packs = path.join(dir, "packs");
  for (const d of [install, packs]) rmSync(d, { recursive: true, force: true });
  await run("mkdir", ["-p", install, packs]);
  const [server, media] = await Promise.all([
    startCliServer(),
    makeVideo(dir, 2, "holiday.mp4"),
    (async () => {
      // prepack builds each package (tsc for the SDK, esbuild for the CLI).
      await run(
        "npm",
        ["pack", "-w", "@kinora/client", "-w", "kinora", "--pack-destination", packs],
        {
          cwd: ROOT,
        },
      );
      writeFileSync(path.join(install, "package.json"), '{ "private": true }\n');
      const tarballs = readdirSync(packs).map((f) => path.join(packs, f));
      await run("npm", ["install", "--offline", "--no-audit", "--no-fund", ...tarballs], {
        cwd: install,
      });
    })(),
  ]);
  s = server;
  video = media;
  bin = path.join(install, "node_modules", ".bin", "kinora");
}, 180_000);

afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the packed kinora client, installed alone", () => {
  it("installs as two small packages: the SDK and the CLI", () => {
    const modules = path.join(dir, "install", "node_modules");
    expect(
      readdirSync(modules)
        .filter((n) => !n.startsWith("."))
        .sort(),
    ).toEqual(["@kinora", "kinora"]);
    expect(readdirSync(path.join(modules, "@kinora"))).toEqual(["client"]);
    const total = duBytes(modules);
    expect(total).toBeLessThan(2_000_000);
    expect(duBytes(path.join(modules, "@kinora", "client"))).toBeLessThan(1_000_000);
  });

  it("answers --help, and says how to get the server for serve", async () => {
    const help = await s.runCli(["--help"], { bin, cwd: dir });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/login/);
    expect(help.stdout).toMatch(/^ {2}restore +\S/m);
    const serve = await s.runCli(["serve"], { bin, cwd: dir });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/npm install -g @kinora\/server/);
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
  });
});

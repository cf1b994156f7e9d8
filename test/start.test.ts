/**
 * The README's `npm start`, as a user runs it: bin/kinora.js compiles src/ to dist/ when it is
 * missing or stale, then serves from the compiled bundle. Checks the bundle really serves (the
 * query layer and the HTTP framework are compiled into it), that its banner leads to the console
 * and a first wallet, and that it stops cleanly on SIGTERM.
 * Start-up time is measured by `npm run bench`, not here.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "kinora-start-"));
let child: ChildProcess | undefined;

afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `node bin/kinora.js serve` on a free port and resolves with the URL it prints. */
function start(): Promise<{ url: string; proc: ChildProcess; output: () => string }> {
  const { DATABASE_URL: _pg, ...env } = process.env;
  const proc = spawn(process.execPath, ["bin/kinora.js", "serve"], {
    cwd: ROOT,
    env: { ...env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /kinora is listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve({ url: m[1], proc, output: () => out });
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`exited ${code} before listening:\n${out}`)));
  });
}

describe("npm start (bin/kinora.js serve)", () => {
  it("serves from the compiled bundle, on a new data directory and again on the same one", async () => {
    for (const round of [1, 2]) {
      const { url, proc, output } = await start();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const created = await fetch(`${url}/wallet`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: `start${round}@example.com` }),
      });
      expect(created.status).toBe(200);
      expect(((await created.json()) as { key: string }).key).toMatch(/^pmk_/);
      const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string };
      expect(doc.openapi).toBe("3.1.0");
      // The banner says where the console is and the first step there, and the links work.
      const text = output();
      expect(text).toContain(`Console:  ${url}/console`);
      expect(text).toMatch(/"Create a new balance" there: your wallet key \(pmk_…\) is shown once/);
      expect(text).toContain(`curl -s -X POST ${url}/wallet`);
      expect(text).toContain(`API docs: ${url}/docs`);
      const consolePage = await fetch(`${url}/console`);
      expect(consolePage.status).toBe(200);
      expect(await consolePage.text()).toContain("Create a new balance");
      expect((await fetch(`${url}/docs`)).status).toBe(200);
      // Step times are each step's own, labelled; the total is said once.
      expect(text).toMatch(/kinora: ready \d+\.\d s after start/);
      expect(text).not.toMatch(/done in/);
      for (const line of text
        .split("\n")
        .filter((l) => l.startsWith("kinora: starting the service took"))) {
        expect(line).toMatch(/took \d+\.\d s \(once the database was open\)$/);
      }
      const exited = new Promise<number | null>((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(output()).not.toMatch(/Error|error/);
    }
  });
});

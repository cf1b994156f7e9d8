/**
 * The README's `npm start`, as a user runs it: bin/kinora.js compiles src/ to dist/ when it is
 * missing or stale, then serves from the compiled bundle. Checks the bundle really serves (the
 * query layer and the HTTP framework are compiled into it) and stops cleanly on SIGTERM.
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
      const exited = new Promise<number | null>((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(output()).not.toMatch(/Error|error/);
    }
  });
});

/**
 * How a client command ends when something goes wrong that it did not word itself: one line, no
 * stack trace (KINORA_DEBUG=1 adds it), and — once a price was charged — what became of the
 * money; also for an error thrown where nothing awaits it (a timer), which would otherwise end
 * the process with Node's own trace.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { ClientCommand } from "./command.js";
import { clientEnv } from "./env.js";
import { runClientCommand } from "./index.js";

const home = mkdtempSync(path.join(tmpdir(), "kinora-index-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const NOTE =
  "rj_1 was paid ($4.99) and keeps running on the server; if it fails it is refunded in full.";

/** A command that charges (sets the note), then fails unexpectedly. */
const failing: ClientCommand = {
  name: "fake",
  summary: "",
  help: "",
  options: {},
  async run(ctx) {
    ctx.charge.note = NOTE;
    throw new TypeError("Cannot read properties of undefined (reading 'x')");
  },
};

async function runFake(env: Record<string, string>) {
  let stderr = "";
  const err = new PassThrough();
  err.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await runClientCommand(failing, [], {
    env: clientEnv({ HOME: home, ...env }),
    streams: { stdout: new PassThrough(), stderr: err, stdin: new PassThrough() },
  });
  return { code, stderr };
}

const STACK = /^\s+at .+[:(]\d+/m;

describe("runClientCommand's failures", () => {
  it("prints an unexpected error in one line with what became of the money, no stack", async () => {
    const { code, stderr } = await runFake({});
    expect(code).toBe(1);
    expect(stderr).toBe(
      `kinora fake: unexpected error: Cannot read properties of undefined (reading 'x'). ${NOTE}\n`,
    );
    const debug = await runFake({ KINORA_DEBUG: "1" });
    expect(debug.stderr).toMatch(STACK);
    expect(debug.stderr).toContain(NOTE);
  });

  it("does the same for an error thrown from a timer, and exits 1", async () => {
    const index = path.join(path.dirname(fileURLToPath(import.meta.url)), "index.ts");
    const script = `
      import { runClientCommand } from ${JSON.stringify(index)};
      await runClientCommand({
        name: "fake", summary: "", help: "", options: {},
        async run(ctx) {
          ctx.charge.note = ${JSON.stringify(NOTE)};
          setTimeout(() => { throw new RangeError("bar width"); }, 10);
          await new Promise((r) => setTimeout(r, 5000));
          return 0;
        },
      }, [], { env: { configHome: ${JSON.stringify(home)}, debug: false } });
    `;
    const child = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: path.resolve(path.dirname(index), "../../.."), env: { PATH: process.env.PATH } },
    ).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(child.code).toBe(1);
    expect(child.stderr).toBe(`kinora fake: unexpected error: bar width. ${NOTE}\n`);
  });
});

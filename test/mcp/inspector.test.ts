/**
 * The MCP Inspector's CLI (the official debugging client, a devDependency) against a served
 * kinora, as an operator types it: it lists the tools, calls one, and reads a refusal as an
 * `isError` result carrying the error body — the Inspector validates results against the
 * tools' output schemas as the SDK client does.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { restoreFeature } from "../../src/features/restore.js";
import { type ServedApp, serveTestApp } from "../served.js";
import type { Json } from "./helpers.js";

const run = promisify(execFile);
const INSPECTOR = path.join(
  path.dirname(
    createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json"),
  ),
  "clients/launcher/build/index.js",
);

let s: ServedApp;
let key: string;
// The Inspector keeps a catalogue under HOME: give it a throwaway one.
const home = mkdtempSync(path.join(tmpdir(), "kinora-inspector-"));
beforeAll(async () => {
  s = await serveTestApp({
    features: [restoreFeature({ noExecutor: true }), paymentsFeature(), mcpFeature()],
  });
  const owner = await s.t.newWallet(1000);
  key = (await s.t.newAgentKey(owner.key, 500)).key;
});
afterAll(async () => {
  await s.close();
});

async function inspector(...args: string[]): Promise<{ out: Json; code: number }> {
  const argv = [INSPECTOR, "--cli", `${s.url}/mcp`, "--transport", "http"];
  argv.push("--header", `Authorization: Bearer ${key}`, ...args);
  const env = { ...process.env, HOME: home };
  try {
    const { stdout } = await run(process.execPath, argv, { env, timeout: 60_000 });
    return { out: JSON.parse(stdout), code: 0 };
  } catch (err) {
    const failed = err as { stdout?: string; code?: number };
    // A refused tool call exits non-zero and prints the result, then its own error line.
    const first = (failed.stdout ?? "").split(/\n(?=\{"error")/)[0] ?? "";
    return { out: JSON.parse(first), code: failed.code ?? 1 };
  }
}

describe("the MCP Inspector CLI", () => {
  it("lists the tools with their output schemas", async () => {
    const { out, code } = await inspector("--method", "tools/list");
    expect(code).toBe(0);
    const names = (out.tools as Json[]).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["quote_restore", "create_restore", "get_balance"]),
    );
    for (const tool of out.tools as Json[]) expect(tool.outputSchema?.type).toBe("object");
  });

  it("calls a tool and reads its structured answer", async () => {
    const { out, code } = await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "quote_restore",
      "--tool-arg",
      "duration_sec=95",
      "--tool-arg",
      "quality=enhanced",
    );
    expect(code).toBe(0);
    expect(out.structuredContent).toMatchObject({ amount_cents: 499, quality: "enhanced" });
  });

  it("reads a refusal as isError with the error body", async () => {
    const { out } = await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "get_restore",
      "--tool-arg",
      "job_id=rj_nothing",
    );
    expect(out.isError).toBe(true);
    expect(JSON.parse(out.content[0].text)).toMatchObject({ code: "not_found" });
  });
});

/**
 * The SDK and `kinora` reach a new kind with no edit: the echo kind (this folder), added to the
 * registry as src/job-kinds.test.ts adds it, then `npm run gen:client`'s two generators run on
 * that server — the SDK's operations from its OpenAPI document, its kinds from the registry —
 * into a copy of packages/client/src and packages/cli/src where nothing else changes. The copy
 * type-checks, and its `kinora` lists echoes beside the other kinds, follows one to done and
 * cancels another (refunded), as a subprocess against the served app. The repository's own
 * CLI, generated without echo, refuses an echo id: the test would fail if the copy needed more
 * than regeneration.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatSource, loadContracts, renderGenerated } from "../../../scripts/gen-client.js";
import { renderKinds } from "../../../scripts/gen-client-kinds.js";
import { featuresFor } from "../../../src/features.js";
import { JOB_KINDS } from "../../../src/job-kinds.js";
import { startRemoteWorkers } from "../../../src/worker.js";
import { ROOT } from "../../cli/harness.js";
import { type ServedApp, serveTestApp } from "../../served.js";
import * as echoContracts from "./api/contracts.js";
import { echoKind } from "./kind.js";
import { createEchoTable } from "./services/table.js";

const run = promisify(execFile);
const TOKEN = "worker-token-0123456789";
/** The registry line a real kind adds to src/job-kinds.ts. */
const KINDS = [...JOB_KINDS, echoKind];
let s: ServedApp;
let scratch: string;
let worker: Awaited<ReturnType<typeof startRemoteWorkers>> | undefined;

/** packages/client/src and packages/cli/src copied (no tests), with the SDK generated for KINDS. */
async function generatedCopy(dir: string): Promise<void> {
  for (const pkg of ["client", "cli"]) {
    cpSync(path.join(ROOT, "packages", pkg, "src"), path.join(dir, "packages", pkg, "src"), {
      recursive: true,
      filter: (from) => !from.endsWith(".test.ts"),
    });
  }
  const doc = (await s.t.call("GET", "/openapi.json")).body;
  const contracts = await loadContracts();
  for (const c of Object.values(echoContracts)) {
    if (c.rest)
      contracts.set(c.id, { id: c.id, spends: Boolean(c.policies?.spends), auth: c.auth });
  }
  const sdk = path.join(dir, "packages/client/src");
  writeFileSync(
    path.join(sdk, "generated.ts"),
    await formatSource(renderGenerated(doc, contracts)),
  );
  writeFileSync(path.join(sdk, "kinds/generated.ts"), await formatSource(renderKinds(KINDS)));
  // The repository's compiler settings and packages; the SDK is the copy's.
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  const tsconfig = {
    extends: path.join(ROOT, "tsconfig.json"),
    compilerOptions: { paths: { "@kinora/client": ["./packages/client/src/index.ts"] } },
    include: ["packages/client/src", "packages/cli/src"],
  };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  writeFileSync(path.join(dir, "package.json"), '{ "private": true, "type": "module" }\n');
}

beforeAll(async () => {
  s = await serveTestApp({ features: featuresFor(KINDS), env: { WORKER_TOKEN: TOKEN } });
  await createEchoTable(s.t.deps.db);
  scratch = mkdtempSync(path.join(tmpdir(), "kinora-echo-client-"));
  mkdirSync(path.join(scratch, "work"));
  await generatedCopy(scratch);
  worker = await startRemoteWorkers(
    [],
    {
      KINORA_SERVER: s.url,
      WORKER_TOKEN: TOKEN,
      DATA_DIR: path.join(scratch, "work"),
      LOG_LEVEL: "silent",
    },
    { kinds: [echoKind], claimWaitMs: 200 },
  );
}, 180_000);
afterAll(async () => {
  await worker?.stop(1000);
  await s?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** `kinora ARGS` from `cwd`'s sources (its tsconfig's SDK), with this key, against the app. */
async function kinora(cwd: string, key: string, args: string[]) {
  const env = {
    PATH: process.env.PATH,
    HOME: scratch,
    KINORA_SERVER: s.url,
    KINORA_KEY: key,
    TSX_TSCONFIG_PATH: path.join(cwd, "tsconfig.json"),
  };
  const main = path.join(cwd, "packages/cli/src/main.ts");
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", main, ...args], {
      cwd,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** POST /echo/jobs for the key: the echo's id and its upload link. */
async function newEcho(key: string, text: string) {
  const created = await s.t.call("POST", "/echo/jobs", {
    key,
    body: { text_bytes: Buffer.byteLength(text) },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body as { job: { id: string }; upload_url: string; upload_headers: never };
}

describe("the SDK and kinora, regenerated for a new kind and not edited", () => {
  it("type-check with echo among the kinds", async () => {
    const tsc = path.join(ROOT, "node_modules/.bin/tsc");
    const res = await run(tsc, ["--noEmit", "-p", path.join(scratch, "tsconfig.json")]).catch(
      (err: { stdout: string }) => ({ stdout: err.stdout, failed: true }),
    );
    expect(res.stdout).toBe("");
  }, 120_000);

  it("kinora lists echoes, follows one to done and cancels another (refunded)", async () => {
    const owner = await s.t.newWallet(1_000);
    const done = await newEcho(owner.key, "hello cli");
    const put = await fetch(done.upload_url, {
      method: "PUT",
      headers: done.upload_headers,
      body: "hello cli",
    });
    expect(put.status).toBe(200);
    expect(
      (await s.t.call("POST", `/echo/jobs/${done.job.id}/start`, { key: owner.key })).status,
    ).toBe(200);
    s.t.clock.advance(1000); // the server's clock stands still: the second echo is newer
    const waiting = (await newEcho(owner.key, "never sent")).job.id;

    const followed = await kinora(scratch, owner.key, ["get", done.job.id, "--follow", "--json"]);
    expect(followed.code, followed.stderr).toBe(0);
    expect(JSON.parse(followed.stdout).job).toMatchObject({ status: "done", result: "HELLO CLI" });

    const listed = await kinora(scratch, owner.key, ["jobs"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${waiting}\\s+echo\\s+awaiting_upload\\s+\\$0\\.07`));
    expect(listed.stdout).toMatch(new RegExp(`${done.job.id}\\s+echo\\s+done\\s+\\$0\\.07`));

    const cancelled = await kinora(scratch, owner.key, ["cancel", waiting]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe(`Cancelled ${waiting}; $0.07 was refunded to your balance.\n`);
    const wallet = await s.t.call("GET", "/wallet", { key: owner.key });
    expect(wallet.body.wallet.balance_cents).toBe(1_000 - 7);
    const shown = await kinora(scratch, owner.key, ["get", waiting]);
    expect(shown.stdout).toContain(`${waiting}  echo  cancelled`);
  }, 120_000);

  it("while the repository's kinora, generated without echo, refuses an echo id", async () => {
    const owner = await s.t.newWallet(100);
    const { id } = (await newEcho(owner.key, "hi")).job;
    const res = await kinora(ROOT, owner.key, ["get", id]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`"${id}" is not a job id`);
  });
});

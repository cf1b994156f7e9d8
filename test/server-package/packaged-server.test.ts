/**
 * The @kinora/server package as an install with `--omit=optional` runs it: packages/server's
 * dist/ is built as `npm pack` builds it, and its `kinora-server` command runs under a loader
 * that makes the five optional media packages unresolvable (block-media-packages.mjs).
 *
 * - An API-only node (WORKERS=0) serves — health, a wallet, a restore quote, a clip with its
 *   prompt checked — without ever asking for them.
 * - A worker that needs them says which are missing and how to get them: `kinora-server
 *   worker` exits with that message; `serve` with in-process workers logs it and still serves.
 * - Every package the bundle imports is declared in packages/server/package.json.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script without types
import { buildDist } from "../../scripts/build.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PACKAGE = path.join(ROOT, "packages", "server");
const BIN = path.join(PACKAGE, "bin", "kinora-server.js");
const BLOCKER = path.join(import.meta.dirname, "block-media-packages.mjs");
const ADMIN_TOKEN = "test-admin-token-0123456789";
const OPTIONAL = [
  "@ffmpeg-installer/ffmpeg",
  "@ffprobe-installer/ffprobe",
  "@node-rs/crc32",
  "@tensorflow/tfjs",
  "@tensorflow/tfjs-backend-wasm",
  "nsfwjs",
];

const scratch = mkdtempSync(path.join(os.tmpdir(), "kinora-server-package-"));
/** A PATH with no ffmpeg on it (node itself is started by its full path). */
const EMPTY_PATH = path.join(scratch, "empty-bin");
const children: ChildProcess[] = [];

beforeAll(async () => {
  await buildDist({
    quiet: true,
    outDir: path.join(PACKAGE, "dist"),
    entries: ["server-commands.ts"],
    template: false,
  });
}, 60_000);

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});

/** The environment of a child: this one's, without a PostgreSQL URL or a PATH to ffmpeg. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _pg, FFMPEG_PATH: _f, FFPROBE_PATH: _p, ...env } = process.env;
  return { ...env, PATH: EMPTY_PATH, LOG_LEVEL: "warn", ...extra };
}

/** Runs `kinora-server <args>` with the media packages blocked; output is stdout and stderr. */
function run(args: string[], env: Record<string, string>) {
  const proc = spawn(process.execPath, ["--import", BLOCKER, BIN, ...args], {
    cwd: scratch,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(proc);
  let out = "";
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
  };
  proc.stdout.on("data", collect);
  proc.stderr.on("data", collect);
  const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
  return { proc, exited, output: () => out };
}

/** Starts `kinora-server serve` on a free port; resolves with its URL once it listens. */
async function serve(env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(scratch, "data-"));
  const child = run(["serve"], {
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    ...env,
  });
  const url = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const m = /kinora is listening on (http:\/\/\S+)/.exec(child.output());
      if (m?.[1]) {
        clearInterval(poll);
        resolve(m[1]);
      }
    }, 25);
    child.exited.then((code) => {
      clearInterval(poll);
      reject(new Error(`exited ${code} before listening:\n${child.output()}`));
    });
  });
  return { ...child, url };
}

async function call(url: string, method: string, body?: unknown, key?: string) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Each of these starts the packaged server on a fresh data folder, and a published package
 * builds its database template on its first start (scripts/build.mjs): the first of them took
 * over 60 s with other work running beside the suite (load 24), the next 48 s.
 */
const SERVER_TEST_MS = 180_000;

describe("@kinora/server installed without its optional packages", () => {
  it(
    "an API-only node (WORKERS=0) serves without ever asking for them",
    async () => {
      const server = await serve({ WORKERS: "0" });
      const { url } = server;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const wallet = await call(`${url}/wallet`, "POST", { email: "api-only@example.com" });
      expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
      const key = wallet.body.key as string;
      const walletId = wallet.body.wallet.wallet_id as string;
      const credited = await call(
        `${url}/admin/wallets/${walletId}/credit`,
        "POST",
        { amount_cents: 500, reason: "test funds" },
        ADMIN_TOKEN,
      );
      expect(credited.status, JSON.stringify(credited.body)).toBe(200);

      const quote = await call(`${url}/cloud/quote`, "POST", {
        duration_sec: 95,
        quality: "enhanced",
      });
      expect(quote.status, JSON.stringify(quote.body)).toBe(200);
      expect(quote.body.amount_cents).toBeGreaterThan(0);

      // The prompt's content check runs on the API node; the image's runs on a worker.
      const refused = await call(
        `${url}/motion/jobs`,
        "POST",
        { prompt: "a nude woman undressing", content_type: "image/png" },
        key,
      );
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body.code).toBe("refused");
      const clip = await call(
        `${url}/motion/jobs`,
        "POST",
        { prompt: "slow push in, rain on the window", content_type: "image/png" },
        key,
      );
      expect(clip.status, JSON.stringify(clip.body)).toBe(200);
      expect(clip.body.job.status).toBe("awaiting_upload");

      server.proc.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      expect(server.output()).not.toContain("test-blocker: refused");
      expect(server.output()).not.toMatch(/cannot run here/);
    },
    SERVER_TEST_MS,
  );

  it(
    "`kinora-server worker` says what is missing and how to get it, and exits 1",
    async () => {
      const worker = run(["worker", "--server", "http://127.0.0.1:9"], {
        WORKER_TOKEN: "test-worker-token",
      });
      expect(await worker.exited).toBe(1);
      const out = worker.output();
      expect(out).toContain("kinora worker: this machine can run no kind of job");
      expect(out).toMatch(/restore jobs cannot run here: ffmpeg and ffprobe not found/);
      expect(out).toMatch(
        /clip jobs cannot run here: .*The image check needs @tensorflow\/tfjs, .*nsfwjs \(optional, not installed\)/,
      );
      expect(out).toContain("npm install @kinora/server --include=optional");
      expect(out).toContain("FFMPEG_PATH");
      expect(out).not.toMatch(/\n\s+at /); // a sentence, not a stack trace
    },
    SERVER_TEST_MS,
  );

  it(
    "`serve` with in-process workers logs what its workers lack and still serves",
    async () => {
      const server = await serve({ WORKERS: "1" });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      server.proc.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      expect(server.output()).toMatch(/restore jobs cannot run here: ffmpeg and ffprobe not found/);
      expect(server.output()).toMatch(
        /clip jobs cannot run here: .*nsfwjs \(optional, not installed\)/,
      );
      // The classifier is not loaded ahead when it cannot be (no "failed to load" with a stack).
      expect(server.output()).not.toContain("image classifier failed to load");
      expect(server.output()).not.toMatch(/\n\s+at /);
    },
    SERVER_TEST_MS,
  );
});

describe("packages/server/package.json", () => {
  const manifest = JSON.parse(readFileSync(path.join(PACKAGE, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    optionalDependencies: Record<string, string>;
  };

  it("declares every package the bundle imports, the media ones and the native CRC32 as optional", () => {
    const imported = bundleImports(path.join(PACKAGE, "dist"));
    // Reached only by the terminal client's interactive paths (spinner, progress bars, secret
    // prompt), which the server's commands never take; `kinora` depends on them.
    const clientOnly = ["@clack/prompts", "cli-progress"];
    const declared = [
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.optionalDependencies),
    ];
    expect(imported.filter((p) => !declared.includes(p) && !clientOnly.includes(p))).toEqual([]);
    expect(Object.keys(manifest.optionalDependencies).sort()).toEqual(OPTIONAL);
    for (const name of OPTIONAL) expect(manifest.dependencies[name]).toBeUndefined();
  });
});

/** The packages the bundle in `dir` imports or requires by name (not node: built-ins). */
function bundleImports(dir: string): string[] {
  const found = new Set<string>();
  const specifier =
    /(?:^|[\n;])\s*(?:import|export)\s[^;"]*?from\s*"([^"]+)"|(?:^|[\n;])\s*import\s*"([^"]+)"|import\(\s*"([^"]+)"\s*\)|require\d*(?:\.resolve)?\(\s*"([^"]+)"\s*\)/g;
  // The installers are required by a name held in a variable (src/engines/ffmpeg.ts).
  const byVariable = ["@ffmpeg-installer/ffmpeg", "@ffprobe-installer/ffprobe"];
  const files = readdirSync(dir, { recursive: true }).map(String);
  for (const file of files.filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(path.join(dir, file), "utf8");
    for (const m of text.matchAll(specifier)) {
      const name = m[1] ?? m[2] ?? m[3] ?? m[4] ?? "";
      if (name.startsWith(".") || name.startsWith("node:")) continue;
      found.add(
        name
          .split("/")
          .slice(0, name.startsWith("@") ? 2 : 1)
          .join("/"),
      );
    }
    for (const name of byVariable) if (text.includes(`"${name}"`)) found.add(name);
  }
  return [...found].sort();
}

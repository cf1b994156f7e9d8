/**
 * A real kinora server on 127.0.0.1 for the CLI tests, and the CLI run as a subprocess against
 * it — exactly as a person runs it against a remote server. The server is the test app served
 * by node:http, with in-process workers so restores, clips and previews really finish, and a small
 * fault injector in front of the storage URLs (drop an upload, hold one, slow a download).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { previewFeature } from "../../src/kinds/preview/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { silentLogger } from "../../src/logger.js";
import { createLocalBlobStore } from "../../src/storage/local-store.js";
import { type JobSystem, startJobSystem } from "../../src/workers/supervisor.js";
import { createTestApp, type TestApp } from "../app.js";
import { stubClassifier } from "../clips/helpers.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(ROOT, "src/main.ts");

/** What the next storage PUTs (uploads and parts) meet, in order: dropped after a few KB, held unanswered, or passed. */
export type UploadFault = "drop" | "hold" | "pass";

export interface Faults {
  /** Files served at /test-media/<name>, e.g. an image for `kinora clip URL`. */
  media: Map<string, Buffer>;
  uploads: UploadFault[];
  /** Serve downloads at most this fast (bytes per second); 0 is full speed. */
  downloadBytesPerSec: number;
  /** Called when an upload is being held. */
  onHold?: () => void;
  /** Every request the server received, in order: what a client sent, without its secrets. */
  seen: SeenRequest[];
}

/** A request as the server received it: method, path and query, and whether a key came with it. */
export interface SeenRequest {
  method: string;
  url: string;
  authorization: boolean;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Resolves once stdout or stderr matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  done: Promise<CliResult>;
}

export interface CliServer {
  url: string;
  t: TestApp;
  faults: Faults;
  /** A fresh config home: each test signs in on its own. */
  newHome(): string;
  /** A fresh config home holding what `kinora login` saves for this server and key. */
  signIn(key: string): string;
  spawnCli(args: string[], opts?: CliOptions): RunningCli;
  runCli(args: string[], opts?: CliOptions & { input?: string }): Promise<CliResult>;
  close(): Promise<void>;
}

/** How one CLI run is started. */
export interface CliOptions {
  home?: string;
  env?: Record<string, string>;
  /** Another `kinora` executable (e.g. an installed package's bin); default: the source. */
  bin?: string;
  /** The working directory (default: the repository). */
  cwd?: string;
}

/** The environment a CLI child gets: nothing of the test process but PATH. */
function childEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home, ...extra };
}

/** The command line that runs the CLI from source (what `npx kinora` does through bin/). */
export function cliCommand(args: string[]): [string, string[]] {
  return [process.execPath, ["--import", "tsx", MAIN, ...args]];
}

interface Served {
  url: string;
  app: TestApp;
  close(): Promise<void>;
}

/** The test app on a node:http server at 127.0.0.1:0, its URLs pointing there, with workers. */
async function serveApp(
  dir: string,
  faults: Faults,
  env: Record<string, string> = {},
): Promise<Served> {
  let listener: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => s.end();
  let app: TestApp | undefined;
  const server = createServer((req, res) => {
    if (app && injectFault(req, res, faults, app, url)) return;
    listener(req, res);
  });
  server.requestTimeout = 0;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const t = await createTestApp({
    env,
    features: [
      restoreFeature(),
      clipsFeature({
        classifier: stubClassifier().classifier,
        // image_url fetches are SSRF-guarded; let the server fetch its own /test-media files.
        imageFetch: { allowPrivateForTests: (address) => address === "127.0.0.1" },
      }),
      // A kind the CLI has no words of its own for: `kinora get`, `jobs` and `cancel` reach it.
      previewFeature(),
      paymentsFeature(),
    ],
    platform: (p) => ({
      ...p,
      publicUrl: url,
      storage: createLocalBlobStore({
        rootDir: path.join(dir, "files"),
        publicBaseUrl: url,
        signer: p.signer,
      }),
    }),
  });
  app = t;
  listener = getRequestListener(t.app.fetch);
  const jobs: JobSystem = await startJobSystem({
    database: t.database,
    queues: t.features.flatMap((f) => f.queues ?? []),
    executors: t.features.flatMap((f) => f.executors ?? []),
    workers: 1,
    leaseMs: 60_000,
    log: silentLogger,
    nodeId: "cli-test",
  });
  return {
    url,
    app: t,
    async close() {
      await jobs.stop(5_000);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await t.close();
    },
  };
}

/** One server per test file, and the means to run the CLI against it. */
export async function startCliServer(
  opts: { env?: Record<string, string> } = {},
): Promise<CliServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-cli-"));
  const faults: Faults = { media: new Map(), uploads: [], downloadBytesPerSec: 0, seen: [] };
  const served = await serveApp(dir, faults, opts.env);
  const newHome = () => mkdtempSync(path.join(dir, "home-"));
  const signIn = (key: string) => {
    const home = newHome();
    const config = JSON.stringify({ server: served.url, key });
    mkdirSync(path.join(home, "kinora"), { mode: 0o700 });
    writeFileSync(path.join(home, "kinora", "config.json"), config, { mode: 0o600 });
    return home;
  };
  const spawnCli: CliServer["spawnCli"] = (args, opts = {}) =>
    spawnRunning(
      opts.bin ? [process.execPath, [opts.bin, ...args]] : cliCommand(args),
      childEnv(opts.home ?? newHome(), opts.env),
      opts.cwd ?? ROOT,
    );
  return {
    url: served.url,
    t: served.app,
    faults,
    newHome,
    signIn,
    spawnCli,
    async runCli(args, opts = {}) {
      const running = spawnCli(args, opts);
      running.child.stdin?.end(opts.input ?? "");
      return running.done;
    },
    async close() {
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function spawnRunning(
  [cmd, argv]: [string, string[]],
  env: NodeJS.ProcessEnv,
  cwd: string,
): RunningCli {
  const child = spawn(cmd, argv, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const watchers = new Set<() => void>();
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString("utf8");
    for (const w of watchers) w();
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
    for (const w of watchers) w();
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    output: () => ({ stdout, stderr }),
    done,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = stdout.match(pattern) ?? stderr.match(pattern);
          if (!match) return;
          cleanup();
          resolve(match);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`CLI never printed ${pattern}:\n${stdout}\n${stderr}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          watchers.delete(check);
        };
        watchers.add(check);
        void done.then(() => {
          check();
          if (watchers.has(check)) {
            cleanup();
            reject(new Error(`CLI exited without printing ${pattern}:\n${stdout}\n${stderr}`));
          }
        });
        check();
      });
    },
  };
}

/** Handles the request itself when a fault applies; false lets the app answer. */
function injectFault(
  req: IncomingMessage,
  res: ServerResponse,
  faults: Faults,
  app: TestApp,
  base: string,
): boolean {
  faults.seen.push({
    method: req.method ?? "",
    url: req.url ?? "",
    authorization: req.headers.authorization !== undefined,
  });
  const media = req.url?.startsWith("/test-media/")
    ? faults.media.get(req.url.slice(12))
    : undefined;
  if (media) {
    res.writeHead(200, { "content-type": "application/octet-stream" }).end(media);
    return true;
  }
  if (req.method === "PUT" && /^\/files\/[up]\//.test(req.url ?? "")) {
    const fault = faults.uploads.shift();
    if (fault === "drop") {
      // Take a few KB, then cut the connection as a flaky network would.
      let received = 0;
      req.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received >= 16 * 1024) req.socket.destroy();
      });
      return true;
    }
    if (fault === "hold") {
      // Read nothing and never answer: the upload is "in progress" until the client gives up.
      req.pause();
      faults.onHold?.();
      return true;
    }
  }
  if (req.method === "GET" && req.url?.startsWith("/files/d/") && faults.downloadBytesPerSec > 0) {
    void slowDownload(req, res, app, base, faults.downloadBytesPerSec);
    return true;
  }
  return false;
}

/** Serves a download through the app, writing it in small slices at `bytesPerSec`. */
async function slowDownload(
  req: IncomingMessage,
  res: ServerResponse,
  t: TestApp,
  base: string,
  bytesPerSec: number,
) {
  const response = await t.app.fetch(new Request(new URL(req.url ?? "/", base)));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  const slice = 2048;
  const body = Buffer.from(await response.arrayBuffer());
  for (let i = 0; i < body.length && !res.destroyed; i += slice) {
    res.write(body.subarray(i, i + slice));
    await new Promise((r) => setTimeout(r, (slice / bytesPerSec) * 1000));
  }
  res.end();
}

/** The wallet's balance straight from the database. */
export async function balanceOf(s: CliServer, walletId: string): Promise<number> {
  const row = await s.t.platform.db
    .selectFrom("wallets")
    .select("balance_cents")
    .where("id", "=", walletId)
    .executeTakeFirstOrThrow();
  return Number(row.balance_cents);
}

/**
 * Waits until the server has recorded `count` more parts of uploads in parts than `before` (both
 * counted over every upload). A lane sends its next part before the store answers the last
 * (@kinora/client's upload-parts.ts), so a PUT held by a fault can arrive before the parts ahead
 * of it are answered and reported: a test that stops the client "after two parts" waits here.
 */
export async function untilPartsRecorded(
  s: CliServer,
  before: number,
  count: number,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await recordedParts(s)) - before < count) {
    if (Date.now() > deadline) throw new Error(`${count} parts were not recorded in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** How many parts of uploads in parts the server has recorded, over every upload. */
export async function recordedParts(s: CliServer): Promise<number> {
  const row = await s.t.platform.db
    .selectFrom("multipart_upload_parts")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A throwaway directory for media and downloads. */
export function scratchDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-cli-media-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Pays a test-mode checkout the way a browser would: load the page, submit its Pay form. */
export async function payTestCheckout(link: string): Promise<void> {
  const page = await (await fetch(link)).text();
  const action = /<form method="post" action="([^"]*\/pay[^"]*)"/.exec(page)?.[1];
  if (!action) throw new Error(`no Pay form on ${link}:\n${page}`);
  const paid = await fetch(new URL(action.replaceAll("&amp;", "&"), link), {
    method: "POST",
    redirect: "manual",
  });
  if (paid.status !== 303) throw new Error(`paying ${link} answered ${paid.status}`);
}

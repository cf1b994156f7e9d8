/**
 * Uploads in parts through the local store, against one bare PUT of the same file to the same
 * store, in the same run. This process is the API node: the local store's routes (part PUTs
 * verified against their checksum (CRC32 by default) and written in place; single PUTs), and the upload services on
 * PGlite (plan, part links, kinora's record of the parts, complete = a rename) behind small
 * routes the client calls as it would call the API. The client is a separate process running
 * the SDK's `uploadParts` (4 parts sent at once) compiled as the package ships it, on plain node
 * (upload-parts-procs.ts compiledPartsClient), or streaming the whole file in one PUT. A first
 * round of each at full size is a warm-up: printed, not counted.
 *
 * Figures: MB/s in parts vs the single PUT (median of the rounds, the two alternating), and the
 * API node's peak RSS growth during each (it must stay flat: parts stream to disk).
 *
 * Each client process is started and loaded before the previous upload's object is deleted, and
 * starts sending right after: every contender meets the page cache that delete freed. (Before,
 * the bare PUT's `node -e` started within milliseconds of the delete and the parts client, tsx
 * compiling the SDK, a second or two later: by then this PVM guest had handed the freed pages
 * back to the host, and writing 2 GiB into such pages costs 1.2-2.1 s of system time instead of
 * 0.3 s (dd here, 5 s after the delete against at once). BENCH_SETTLE_MS=n waits n ms after
 * the delete instead, so every contender meets memory given back; BENCH_MARKS=1 prints each
 * upload's CLOCK_MONOTONIC span. The parts client makes one request before it says it is loaded:
 * a process's first fetch loads undici (50-110 ms here), which a client that has just created
 * its job has done; the bare PUT's link is likewise signed before its client starts.
 *
 * `npm run bench -- parts` runs it (256 MiB; BENCH_FULL=1: 2 GiB; BENCH_ROUNDS=n rounds,
 * BENCH_CONC=n parts sent at once, BENCH_PART_MIB=n another part size, BENCH_DATABASE_URL=url the
 * upload services on that PostgreSQL instead of PGlite, BENCH_ANSWER_DELAY_MS=n each part's
 * answer n ms late as from a far store, BENCH_PHASES=1 each upload's timeline, BENCH_NO_HEADROOM=1
 * the API node without the heap headroom `kinora serve` gives it). Alone:
 * `npx tsx bench/upload-parts.ts 10GiB` sends one file of that size once, in parts only, and
 * reports its wall time and both processes' RSS (needs twice the size free under the OS temp
 * folder: the source file and the joined object).
 */
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { type Database, openDatabase } from "../src/db/database.js";
import { migrate } from "../src/db/migrate.js";
import { randomId } from "../src/domain/ids.js";
import { silentLogger } from "../src/logger.js";
import { completeUpload } from "../src/services/uploads/finish.js";
import {
  openUpload,
  partTickets,
  recordPart,
  type UploadsDeps,
  uploadOf,
  uploadProgress,
} from "../src/services/uploads/uploads.js";
import { giveHeapHeadroomForUploads } from "../src/storage/heap-headroom.js";
import { createLocalBlobStore } from "../src/storage/local-store.js";
import { type Figure, median } from "./lib.js";
import { openBenchSchema } from "./pg-schema.js";
import {
  BARE_CLIENT,
  checksumCpuPerGib,
  compiledPartsClient,
  makeFile,
  pairedLine,
  runClient,
} from "./upload-parts-procs.js";

const MIB = 1024 ** 2;
const PART_BYTES = Number(process.env.BENCH_PART_MIB ?? 64) * MIB;
const here = path.dirname(new URL(import.meta.url).pathname);

interface Bench {
  base: string;
  /** The parts client as compiled JavaScript (upload-parts-procs.ts compiledPartsClient). */
  client: string;
  deps: UploadsDeps;
  store: ReturnType<typeof createLocalBlobStore>;
  close(): Promise<void>;
}

/**
 * The API node's database: PGlite in the bench's folder (the embedded default), or with
 * BENCH_DATABASE_URL a schema of its own on that PostgreSQL, dropped at the end (what a
 * deployment for tapes runs: the per-part queries then leave the API node's thread).
 */
async function openBenchDatabase(
  dir: string,
): Promise<{ db: Database["db"]; close(): Promise<void> }> {
  const url = process.env.BENCH_DATABASE_URL;
  if (url) return openBenchSchema(url, 8);
  const database = await openDatabase({ dataDir: path.join(dir, "db") });
  await migrate(database.db);
  return database;
}

/** The API node: local store routes and the upload services behind the bench's own routes. */
async function startNode(dir: string): Promise<Bench> {
  // This process is the API node: its heap as `kinora serve` sets it, unless BENCH_NO_HEADROOM=1
  // (src/storage/heap-headroom.ts; without it most runs met V8's full collections every few
  // dozen megabytes received, in some rounds or all).
  if (process.env.BENCH_NO_HEADROOM !== "1") giveHeapHeadroomForUploads();
  const database = await openBenchDatabase(dir);
  const store = createLocalBlobStore({
    rootDir: path.join(dir, "files"),
    publicBaseUrl: "http://127.0.0.1:1",
    signer: "bench-signing-secret-0123456789abcdef",
    // As `kinora serve` reads it: STORAGE_DIRECT_IO=off measures the store through the page cache.
    directWrites: process.env.STORAGE_DIRECT_IO !== "off",
    maxUploadBytes: 16 * 1024 ** 3,
  });
  const deps: UploadsDeps = {
    db: database.db,
    clock: () => new Date(),
    ids: randomId,
    log: silentLogger,
    storage: store,
  };
  const app = new Hono();
  // BENCH_ANSWER_DELAY_MS=n: each part's answer leaves n ms after the store wrote it down, as
  // a far store's answers arrive (a round trip over the internet, S3's own commit): what a
  // lane that waits for its answer before sending on loses, and one that goes on does not.
  const answerDelayMs = Number(process.env.BENCH_ANSWER_DELAY_MS ?? 0);
  if (answerDelayMs > 0) {
    app.use("/files/p/*", async (_c, next) => {
      await next();
      await new Promise((r) => setTimeout(r, answerDelayMs));
    });
  }
  app.route("/files", store.routes());
  const row = async (key: string) => {
    const found = await uploadOf(deps, key);
    if (!found) throw new Error(`no upload of ${key}`);
    return found;
  };
  type Body = {
    key: string;
    parts: { part_number: number; checksum: string }[];
    part: { part_number: number; etag: string; checksum: string };
  };
  // The parts client's first request, before its clock starts (upload-parts-client.ts).
  app.post("/bench/warm", (c) => c.json({}));
  app.post("/bench/state", async (c) =>
    c.json(await uploadProgress(deps, await row((await c.req.json<Body>()).key))),
  );
  app.post("/bench/links", async (c) => {
    const b = await c.req.json<Body>();
    const links = await partTickets(deps, await row(b.key), b.parts);
    return c.json(links.map((l) => ({ ...l, url: l.url.replace("http://127.0.0.1:1", base) })));
  });
  app.post("/bench/report", async (c) => {
    const b = await c.req.json<Body>();
    const p = b.part;
    // Brief, as the SDK asks the API (client.ts): the counts, not every part's record.
    await recordPart(
      deps,
      await row(b.key),
      { partNumber: p.part_number, etag: p.etag, checksum: p.checksum },
      { brief: true },
    );
    return c.json({});
  });
  app.post("/bench/complete", async (c) => {
    await completeUpload(deps, await row((await c.req.json<Body>()).key));
    return c.json({});
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as http.Server;
  server.requestTimeout = 0;
  if (!server.listening) await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    client: compiledPartsClient(),
    deps,
    store,
    async close() {
      server.close();
      await database.close();
    },
  };
}

/** How one measured upload is run. */
interface Contender {
  /** Part size (uploads in parts). */
  partBytes?: number;
  /** Runs once the client is loaded, just before it starts (the previous upload's cleanup). */
  before?: () => Promise<void>;
}

/** One upload in parts by the client process: seconds, the client's and this node's RSS. */
async function inParts(
  node: Bench,
  key: string,
  file: string,
  bytes: number,
  { partBytes = PART_BYTES, before = async () => {} }: Contender = {},
) {
  await openUpload(node.deps, {
    key,
    contentType: "video/dv",
    sizeBytes: bytes,
    partBytes,
    checksum: process.env.BENCH_CHECKSUM === "sha256" ? "sha256" : "crc32",
    expiresAt: new Date(Date.now() + 24 * 3600_000),
  });
  const args = [node.client, node.base, key, file, process.env.BENCH_CONC ?? "4"];
  return runClient(args, before);
}

async function bare(
  node: Bench,
  key: string,
  file: string,
  bytes: number,
  { before = async () => {} }: Contender = {},
) {
  const t = await node.store.presignUpload(key, {
    contentType: "video/dv",
    sizeBytes: bytes,
    expiresInSec: 3600,
  });
  const url = t.url.replace("http://127.0.0.1:1", node.base);
  return runClient(
    ["-e", BARE_CLIENT, url, file, String(bytes), JSON.stringify(t.headers)],
    before,
  );
}

/**
 * Small uploads before measuring (three in parts, one PUT): the first uploads in parts compile
 * the database's code paths for uploads (PGlite's WebAssembly, tiered up on V8's background
 * threads: up to 6 CPU s seen in the first measured round after one warm-up upload) and JIT
 * the routes, which a running API node has long done. Left in, that was charged to parts only.
 */
async function warmUp(node: Bench, dir: string) {
  const file = path.join(dir, "warm.bin");
  const bytes = PART_BYTES + MIB;
  await makeFile(file, bytes);
  for (const [i, send] of [inParts, bare, inParts, inParts].entries()) {
    const key = `restore/rj_benchwarm${i}/input`;
    await send(node, key, file, bytes);
    await node.store.delete(key);
  }
  // A 2 GiB upload asks for 32 links and reports 32 parts: its first round kept V8's compilers
  // busy on the upload queries for up to 3 CPU s (BENCH_THREADS=1), charged to parts alone.
  // Two uploads of 65 small parts run those paths as often first.
  for (const i of [0, 1]) {
    const key = `restore/rj_benchwarmmany${i}/input`;
    await inParts(node, key, file, bytes, { partBytes: MIB });
    await node.store.delete(key);
  }
  rmSync(file);
}

interface Run {
  sec: number;
  rssGrowthMb: number;
  cpuSec: number;
  nodeCpuSec: number;
  /** Minor page faults of the API node and of the client while the upload ran. */
  nodeFaults: number;
  clientFaults: number;
  /** When the upload started and ended (CLOCK_MONOTONIC, s). */
  t0: number;
  t1: number;
}

/** The parts figures: in parts vs one PUT, alternating, `rounds` times. */
export async function benchUploadParts(bytes: number, rounds = 3): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-parts-"));
  const file = path.join(dir, "src.bin");
  const node = await startNode(dir);
  try {
    await makeFile(file, bytes);
    await warmUp(node, dir);
    const runs = { parts: [] as Run[], bare: [] as Run[] };
    const shaCosts: number[] = [];
    let previous: string | null = null;
    const settleMs = Number(process.env.BENCH_SETTLE_MS ?? 0);
    // Round 0 is a warm-up at full size, printed and not counted: every run's first 2 GiB in
    // parts was the slowest by far (392-534 MB/s against 539-828 after, its API node 4.4-6.4
    // CPU s against 2.5-4.4), V8 still tiering up and sizing its heap for the part route's
    // chunk traffic, which an API node that has been up for a while has long done. (The small
    // uploads of warmUp compile the code paths; they move too few bytes to settle the heap.)
    for (let round = 0; round <= rounds; round++) {
      const counted = round > 0;
      // Alternate which goes first, so neither always meets the other's write-back.
      const order = round % 2 === 1 ? (["parts", "bare"] as const) : (["bare", "parts"] as const);
      for (const which of order) {
        const key = `restore/rj_bench${which}${round}/input`;
        const before = async () => {
          if (previous) await node.store.delete(previous);
          previous = null;
          if (settleMs) await new Promise((r) => setTimeout(r, settleMs));
        };
        const run = await (which === "parts" ? inParts : bare)(node, key, file, bytes, { before });
        if (process.env.BENCH_MARKS) console.error(`MARK ${which} ${run.t0} ${run.t1}`);
        previous = key;
        if (counted) runs[which].push(run);
        // Each round on stderr: the medians hide how far apart the rounds were.
        console.error(
          `  ${counted ? `round ${round}` : "warm-up"} ${which}: ${(bytes / MIB / run.sec).toFixed(0)} MB/s, CPU ${run.cpuSec.toFixed(1)} s (API node ${run.nodeCpuSec.toFixed(1)}), page faults API node ${run.nodeFaults} client ${run.clientFaults}`,
        );
      }
      shaCosts.push(checksumCpuPerGib());
    }
    if (previous) await node.store.delete(previous);
    const mb = bytes / MIB;
    process.stdout.write(`${pairedLine(runs.parts, runs.bare)}\n`);
    const rate = (rs: { sec: number }[]) => median(rs.map((r) => mb / r.sec));
    const growth = (rs: { rssGrowthMb: number }[]) => Math.max(1, ...rs.map((r) => r.rssGrowthMb));
    const cpuPerGib = (rs: Run[]) => median(rs.map((r) => r.cpuSec / (bytes / 1024 ** 3)));
    const nodeCpuPerGib = (rs: Run[]) => median(rs.map((r) => r.nodeCpuSec / (bytes / 1024 ** 3)));
    return [
      {
        name: `upload ${mb.toFixed(0)} MB in ${PART_BYTES / MIB} MiB parts, ${process.env.BENCH_CONC ?? 4} at once (median of ${rounds})`,
        value: rate(runs.parts),
        unit: "MB/s",
        baselineName: "one PUT, same store",
        baseline: rate(runs.bare),
        better: "higher",
        aim: "≥ 0.9",
      },
      {
        name: "upload in parts: API node peak RSS growth",
        value: growth(runs.parts),
        unit: "MB",
        baselineName: "one PUT",
        baseline: growth(runs.bare),
        better: "lower",
        aim: "flat (< 100 MB)",
      },
      {
        // Why the rate is below the PUT's: each part's checksum is computed by the client and
        // verified by the store (the PUT checks only its length), and each range read twice.
        name: "upload in parts: CPU s per GiB, API node + client",
        value: cpuPerGib(runs.parts),
        unit: "s",
        baselineName: "one PUT",
        baseline: cpuPerGib(runs.bare),
        better: "lower",
      },
      {
        // The API node's share of the above: where the extra goes (node or client).
        name: "upload in parts: CPU s per GiB, API node alone",
        value: nodeCpuPerGib(runs.parts),
        unit: "s",
        baselineName: "one PUT",
        baseline: nodeCpuPerGib(runs.bare),
        better: "lower",
      },
      {
        // How much of the extra CPU the checksum explains: each part's CRC32 is computed
        // twice (the client to ask for its link, the store to verify it).
        name: "upload in parts: CPU s per GiB beyond one PUT",
        value: cpuPerGib(runs.parts) - cpuPerGib(runs.bare),
        unit: "s",
        baselineName: "CRC32 twice, measured between rounds",
        baseline: 2 * median(shaCosts),
        better: "lower",
      },
    ];
  } finally {
    await node.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 256 MiB by default, 2 GiB with BENCH_FULL=1, 64 MiB with BENCH_QUICK=1. */
export function partsBenchBytes(quick: boolean): number {
  if (process.env.BENCH_FULL === "1") return 2 * 1024 ** 3;
  return quick ? 64 * MIB : 256 * MIB;
}

/** One large upload in parts, reported with its wall time and RSS (`tsx bench/upload-parts.ts 10GiB`). */
async function once(bytes: number) {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-parts-"));
  const free = statfsSync(dir).bavail * statfsSync(dir).bsize;
  if (free < 2 * bytes + 1024 ** 3) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `${(free / 1024 ** 3).toFixed(1)} GiB free under ${tmpdir()}; ${((2 * bytes) / 1024 ** 3).toFixed(1)} GiB needed`,
    );
  }
  const node = await startNode(dir);
  try {
    const file = path.join(dir, "src.bin");
    const made = performance.now();
    await makeFile(file, bytes);
    process.stdout.write(
      `made a ${(bytes / 1024 ** 3).toFixed(1)} GiB file in ${((performance.now() - made) / 1000).toFixed(0)} s\n`,
    );
    const rssBefore = process.memoryUsage().rss / MIB;
    const r = await inParts(node, "restore/rj_bench10g/input", file, bytes);
    const cpu = `CPU ${r.cpuSec.toFixed(1)} s (API node ${r.nodeCpuSec.toFixed(1)} + client ${(r.cpuSec - r.nodeCpuSec).toFixed(1)})`;
    const head = await node.store.head("restore/rj_bench10g/input");
    if (head?.sizeBytes !== bytes)
      throw new Error(`joined ${head?.sizeBytes} bytes, expected ${bytes}`);
    process.stdout.write(
      `upload in parts of ${(bytes / 1024 ** 3).toFixed(1)} GiB (${Math.ceil(bytes / PART_BYTES)} parts of ${PART_BYTES / MIB} MiB, ${process.env.BENCH_CONC ?? 4} at once) through the local store: ` +
        `wall ${r.sec.toFixed(1)} s (${(bytes / MIB / r.sec).toFixed(0)} MB/s, completion included); ` +
        `API node RSS ${rssBefore.toFixed(0)} MB before, peak growth ${r.rssGrowthMb.toFixed(0)} MB; client peak RSS ${r.clientRssMb.toFixed(0)} MB; ${cpu}\n`,
    );
  } finally {
    await node.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(MiB|GiB)$/i.exec(text);
  if (!m) throw new Error(`size like 10GiB or 512MiB, got ${text}`);
  return Math.round(Number(m[1]) * (m[2]?.toLowerCase() === "gib" ? 1024 ** 3 : MIB));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(here, "upload-parts.ts")) {
  once(parseSize(process.argv[2] ?? "10GiB")).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

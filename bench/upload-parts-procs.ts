/**
 * The processes of the parts benchmark (bench/upload-parts.ts): the source file, the client
 * child processes (the SDK's uploader, or one bare streamed PUT), and what is measured of this
 * process, the API node, while one upload runs (peak RSS, CPU, optional profiles and per-thread
 * CPU), and the CRC32 cost the report sets beside the extra CPU.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { createPartHasher } from "../src/storage/part-checksum.js";
import { median, percentile } from "./lib.js";

const MIB = 1024 ** 2;
const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, "..");

/**
 * The parts client compiled as @kinora/client ships it (tsc, the package's compiler options),
 * so it runs as an installed client does: plain `node` on JavaScript. Run under tsx's loader,
 * the SDK's lazy imports (node:fs, node-put.js) went through tsx's hook thread and esbuild
 * after the upload had started, charged to parts alone (ratio 0.58 under tsx against 0.76
 * compiled, one run of 4 rounds each here).
 * The output sits under node_modules/.cache so the client finds @node-rs/crc32 as installed.
 * Returns the script to run.
 */
export function compiledPartsClient(): string {
  const out = path.join(repo, "node_modules", ".cache", "kinora-bench-parts");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, "package.json"), '{ "type": "module" }\n');
  // cast: the package's own tsconfig, a JSON object with compilerOptions
  const build = JSON.parse(
    readFileSync(path.join(repo, "packages", "client", "tsconfig.build.json"), "utf8"),
  ) as { compilerOptions: Record<string, unknown> };
  const o = build.compilerOptions;
  const flags = [
    ["--target", String(o.target)],
    ["--module", String(o.module)],
    ["--moduleResolution", String(o.moduleResolution)],
    ["--lib", String(o.lib)],
    ["--types", "node"],
    ["--skipLibCheck"],
    ["--strict"],
    ["--rootDir", repo],
    ["--outDir", out],
  ].flat();
  const tsc = path.join(repo, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [tsc, ...flags, path.join(here, "upload-parts-client.ts")], {
    stdio: "inherit",
  });
  return path.join(out, "bench", "upload-parts-client.js");
}

/** Writes `bytes` random bytes to `file`, synced. */
export async function makeFile(file: string, bytes: number) {
  const chunk = randomBytes(MIB);
  const fh = await open(file, "w");
  for (let written = 0; written < bytes; written += chunk.length) {
    await fh.write(chunk, 0, Math.min(chunk.length, bytes - written));
  }
  await fh.sync();
  await fh.close();
}

/**
 * Peak RSS growth, CPU and minor page faults of this process (the API node) while `run` runs,
 * and when it started and ended on CLOCK_MONOTONIC (to slice a `perf record -k CLOCK_MONOTONIC`).
 */
export async function sampled<T>(run: () => Promise<T>): Promise<{
  out: T;
  rssGrowthMb: number;
  nodeCpuSec: number;
  nodeFaults: number;
  t0: number;
  t1: number;
}> {
  const stopProfile = await profileApiNode();
  const faults0 = minorFaults();
  const t0 = Number(process.hrtime.bigint()) / 1e9;
  const cpu0 = process.cpuUsage();
  // rss() alone: memoryUsage() walks the heap's spaces, 20 times a second on the node measured.
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  try {
    const out = await run();
    const cpu = process.cpuUsage(cpu0);
    await stopProfile();
    if (process.env.BENCH_THREADS === "1") console.error(threadTimes());
    return {
      out,
      rssGrowthMb: (peak - base) / MIB,
      nodeCpuSec: (cpu.user + cpu.system) / 1e6,
      nodeFaults: minorFaults() - faults0,
      t0,
      t1: Number(process.hrtime.bigint()) / 1e9,
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * This process's minor page faults so far. On this machine's PVM guest a fault on fresh memory
 * costs ~16 µs (2 GiB of anonymous memory first touched: 8.6-10.4 s; touched again: 0.2 s), so
 * memory a process gives back and takes again shows up as CPU.
 */
export function minorFaults(): number {
  return process.resourceUsage().minorPageFault;
}

/**
 * BENCH_PROF_DIR=dir: a CPU profile of this process (the API node) while one upload runs,
 * written to dir (the client writes its own there: node --cpu-prof).
 */
async function profileApiNode(): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_PROF_DIR;
  if (!dir) return async () => {};
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(path.join(dir, `api-node-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * BENCH_THREADS=1: this process's CPU by thread (utime/stime in ticks, cumulative), after each
 * upload: the main thread, V8's helpers (GC, compilers) and libuv's pool (file writes) apart.
 */
function threadTimes(): string {
  const rows: string[] = [];
  for (const task of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    rows.push(`${task}:${fields[11]}/${fields[12]}`);
  }
  return `API node threads (user/system ticks): ${rows.join(" ")}`;
}

/**
 * Starts a client process and waits until it is loaded (it prints `ready`); `go()` then lets it
 * start uploading and resolves with what it prints after. The client's start-up (tsx compiling
 * the SDK takes a second or two, a bare `node -e` a few ms) is outside what is measured, and
 * what runs between the two (the previous upload's cleanup) happens just before the first byte
 * for every contender alike.
 */
export async function startChild(args: string[]): Promise<{ go(): Promise<string> }> {
  // BENCH_PROF_DIR=dir: the client writes a CPU profile there too (node --cpu-prof).
  const prof = process.env.BENCH_PROF_DIR;
  const flags = prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : [];
  const p = spawn(process.execPath, [...flags, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  let onReady: (() => void) | null = null;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  p.stdout.on("data", (d) => {
    out += d;
    if (onReady && out.startsWith("ready\n")) {
      out = out.slice("ready\n".length);
      onReady();
      onReady = null;
    }
  });
  const closed = new Promise<string>((resolve, reject) => {
    p.on("error", reject);
    p.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`)),
    );
  });
  await Promise.race([ready, closed]);
  return {
    go() {
      p.stdin.end("go\n");
      return closed;
    },
  };
}

/** One streamed PUT of the whole file (the baseline), timed by the client itself. */
export const BARE_CLIENT = `
const http = require("node:http");
const fs = require("node:fs");
const [url, file, size, headers] = process.argv.slice(1);
process.stdout.write("ready\\n");
process.stdin.once("data", () => {
const started = performance.now();
const req = http.request(url, { method: "PUT", headers: { ...JSON.parse(headers), "content-length": size } });
req.on("response", (res) => { res.resume(); res.on("end", () => {
  if (res.statusCode >= 300) { process.stderr.write("HTTP " + res.statusCode); process.exit(1); }
  const cpu = process.cpuUsage();
  process.stdout.write((performance.now() - started) / 1000 + " 0 " + (cpu.user + cpu.system) / 1e6 + " " + process.resourceUsage().minorPageFault);
}); });
req.on("error", (err) => { process.stderr.write(String(err)); process.exit(1); });
fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(req);
});
`;

/** CPU seconds to checksum one GiB here and now (256 MiB, as the parts' default, CRC32, is). */
export function checksumCpuPerGib(): number {
  const chunk = randomBytes(MIB);
  const cpu0 = process.cpuUsage();
  const hash = createPartHasher("crc32");
  for (let i = 0; i < 256; i++) hash.update(chunk);
  hash.digest();
  const cpu = process.cpuUsage(cpu0);
  return ((cpu.user + cpu.system) / 1e6) * 4;
}

/**
 * Starts a client process (it prints `<seconds> <peak RSS MB> <CPU s> <page faults>`), runs
 * `before` once it is loaded, then lets it upload while this node is sampled.
 */
export async function runClient(args: string[], before: () => Promise<void>) {
  const client = await startChild(args);
  await before();
  const { out, rssGrowthMb, nodeCpuSec, nodeFaults, t0, t1 } = await sampled(() => client.go());
  const [
    sec = Number.NaN,
    clientRssMb = Number.NaN,
    clientCpuSec = Number.NaN,
    clientFaults = Number.NaN,
  ] = out.split(" ").map(Number);
  return {
    sec,
    clientRssMb,
    rssGrowthMb,
    cpuSec: nodeCpuSec + clientCpuSec,
    nodeCpuSec,
    nodeFaults,
    clientFaults,
    t0,
    t1,
  };
}

/**
 * Each round's parts rate over the same round's PUT rate, as a median and quartiles. The
 * headline ratio (median over median) and this one answer the same question; this one is less
 * moved by the machine's state drifting through a run (the guest's page cache and V8's
 * collector put whole stretches of rounds at half speed for both contenders alike), and its
 * quartiles say how far one run can be trusted.
 */
export function pairedLine(
  parts: readonly { sec: number }[],
  bare: readonly { sec: number }[],
): string {
  const ratios = parts.map((p, i) => (bare[i] ? bare[i].sec / p.sec : Number.NaN));
  const fmt = (n: number) => n.toFixed(2);
  return `  upload in parts: each round's parts / PUT rate: median ${fmt(median(ratios))}, quartiles ${fmt(percentile(ratios, 25))}-${fmt(percentile(ratios, 75))}, ${ratios.length} rounds (${ratios.map(fmt).join(" ")})`;
}

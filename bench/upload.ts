/**
 * Upload throughput: one large PUT through kinora's local store (signed URL, exact-size
 * check, temp file + rename, fsync) on a real HTTP server, vs a bare node:http server piping
 * the request to disk. Also the peak RSS growth of this process, which is only the server:
 * the client is a child process streaming the file from disk, as a real client would be.
 *
 * The two alternate for a few rounds and each figure is the median of its rounds, so a burst
 * of load from elsewhere on the machine moves one round, not the ratio. Between rounds (not
 * timed) the bare pipe's file is flushed, so neither pays for writing back the other's bytes.
 */

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { giveHeapHeadroomForUploads } from "../src/storage/heap-headroom.js";
import { createLocalBlobStore } from "../src/storage/local-store.js";
import { type Figure, median } from "./lib.js";

async function makeFile(file: string, bytes: number) {
  const chunk = randomBytes(1024 * 1024);
  const fh = await open(file, "w");
  for (let written = 0; written < bytes; written += chunk.length) {
    await fh.write(chunk, 0, Math.min(chunk.length, bytes - written));
  }
  await fh.sync();
  await fh.close();
}

/**
 * The client: a separate node process streaming the file into one PUT. It times the request
 * itself (its own start-up is not the server's time) and prints `<status> <seconds>`.
 */
const CLIENT = `
const http = require("node:http");
const fs = require("node:fs");
const [url, file, size, headers] = process.argv.slice(1);
const started = performance.now();
const req = http.request(url, {
  method: "PUT",
  headers: { ...JSON.parse(headers), "content-length": size },
});
req.on("response", (res) => {
  res.resume();
  res.on("end", () => {
    process.stdout.write(res.statusCode + " " + (performance.now() - started) / 1000);
  });
});
req.on("error", (err) => {
  process.stderr.write(String(err));
  process.exit(1);
});
fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(req);
`;

interface Timed {
  sec: number;
  rssGrowthMb: number;
}

/** One upload by the client process; the server's peak RSS growth sampled meanwhile. */
function put(url: string, file: string, bytes: number, headers: Record<string, string>) {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return new Promise<Timed>((resolve, reject) => {
    const args = ["-e", CLIENT, url, file, String(bytes), JSON.stringify(headers)];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(sampler);
      const [status, sec] = out.split(" ").map(Number);
      if (code !== 0 || !status || !sec) reject(new Error(`upload client: exit ${code}, ${out}`));
      else if (status >= 300) reject(new Error(`upload answered ${status}`));
      else resolve({ sec, rssGrowthMb: (peak - base) / 1048576 });
    });
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function flush(file: string) {
  const fh = await open(file, "a");
  await fh.sync();
  await fh.close();
}

export async function benchUpload(bytes: number, rounds = 3): Promise<Figure[]> {
  // This process is the API node (and the bare baseline beside it): as `kinora serve` runs,
  // unless BENCH_NO_HEADROOM=1 (src/storage/heap-headroom.ts).
  if (process.env.BENCH_NO_HEADROOM !== "1") giveHeapHeadroomForUploads();
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-upload-"));
  const file = path.join(dir, "src.bin");
  const bareFile = path.join(dir, "bare.bin");
  await makeFile(file, bytes);
  // Baseline: bare node:http, request piped to a file.
  const bare = http.createServer((req, res) => {
    pipeline(req, createWriteStream(bareFile)).then(
      () => res.end("ok"),
      () => res.writeHead(500).end(),
    );
  });
  // kinora's local store behind @hono/node-server, as `kinora serve` mounts it.
  const app = new Hono();
  const store = createLocalBlobStore({
    rootDir: path.join(dir, "files"),
    publicBaseUrl: "http://127.0.0.1:1",
    signer: "bench-signing-secret-0123456789abcdef",
    // As `kinora serve` reads it: STORAGE_DIRECT_IO=off measures the store through the page cache.
    directWrites: process.env.STORAGE_DIRECT_IO !== "off",
  });
  app.route("/files", store.routes());
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as http.Server;
  server.requestTimeout = 0;
  try {
    const bareUrl = await listen(bare);
    if (!server.listening) await new Promise((r) => server.once("listening", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const runs: Record<"bare" | "kinora", Timed[]> = { bare: [], kinora: [] };
    for (let round = 0; round < rounds; round++) {
      runs.bare.push(await put(`${bareUrl}/x`, file, bytes, {}));
      await flush(bareFile);
      const key = `restore/rj_bench${round}/input`;
      const ticket = await store.presignUpload(key, {
        contentType: "video/mp4",
        sizeBytes: bytes,
        expiresInSec: 3600,
      });
      const url = ticket.url.replace("http://127.0.0.1:1", base);
      runs.kinora.push(await put(url, file, bytes, ticket.headers));
      await store.delete(key);
    }
    const mb = bytes / 1048576;
    const rate = (rs: Timed[]) => median(rs.map((r) => mb / r.sec));
    const growth = (rs: Timed[]) => Math.max(1, Math.max(...rs.map((r) => r.rssGrowthMb)));
    return [
      {
        name: `upload ${mb.toFixed(0)} MB via local store (median of ${rounds})`,
        value: rate(runs.kinora),
        unit: "MB/s",
        baselineName: "bare node:http pipe",
        baseline: rate(runs.bare),
        better: "higher",
        aim: "≥ 0.9",
      },
      {
        name: "upload peak RSS growth (local store)",
        value: growth(runs.kinora),
        unit: "MB",
        baselineName: "bare pipe",
        baseline: growth(runs.bare),
        better: "lower",
        aim: "flat (< 100 MB)",
      },
    ];
  } finally {
    bare.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 512 MB by default, 2 GiB with BENCH_FULL=1, 64 MB with BENCH_QUICK=1. */
export function uploadBenchBytes(quick: boolean): number {
  if (process.env.BENCH_FULL === "1") return 2 * 1024 ** 3;
  return quick ? 64 * 1024 ** 2 : 512 * 1024 ** 2;
}

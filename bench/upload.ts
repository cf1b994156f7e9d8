/**
 * Upload throughput: one large PUT through kinora's local store (signed URL, exact-size
 * check, temp file + rename) on a real HTTP server, vs a bare node:http server piping the
 * request to disk. Also the peak RSS growth of this process (server and client share it; the
 * client streams from disk, so the growth is the server's buffering).
 */

import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createLocalBlobStore } from "../src/storage/local-store.js";
import type { Figure } from "./lib.js";

async function makeFile(file: string, bytes: number) {
  const chunk = randomBytes(1024 * 1024);
  const fh = await open(file, "w");
  for (let written = 0; written < bytes; written += chunk.length) {
    await fh.write(chunk, 0, Math.min(chunk.length, bytes - written));
  }
  await fh.close();
}

function put(url: string, file: string, bytes: number, headers: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    const req = http.request(url, {
      method: "PUT",
      headers: { ...headers, "content-length": String(bytes) },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    createReadStream(file).pipe(req);
  });
}

async function timed(fn: () => Promise<number>) {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const status = await fn();
  const sec = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (status >= 300) throw new Error(`upload answered ${status}`);
  return { sec, rssGrowthMb: (peak - base) / 1048576 };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function benchUpload(bytes: number): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-upload-"));
  const file = path.join(dir, "src.bin");
  await makeFile(file, bytes);
  try {
    // Baseline: bare node:http, request piped to a file.
    const bare = http.createServer((req, res) => {
      pipeline(req, createWriteStream(path.join(dir, "bare.bin"))).then(
        () => res.end("ok"),
        () => res.writeHead(500).end(),
      );
    });
    const bareUrl = await listen(bare);
    const baseline = await timed(() => put(`${bareUrl}/x`, file, bytes, {}));
    bare.close();

    // kinora's local store behind @hono/node-server, as `kinora serve` mounts it.
    let base = "http://127.0.0.1:0";
    const app = new Hono();
    const store = createLocalBlobStore({
      rootDir: path.join(dir, "files"),
      publicBaseUrl: "http://127.0.0.1:1",
      signer: "bench-signing-secret-0123456789abcdef",
    });
    app.route("/files", store.routes());
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as http.Server;
    server.requestTimeout = 0;
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ticket = await store.presignUpload("restore/rj_bench/input", {
      contentType: "video/mp4",
      sizeBytes: bytes,
      expiresInSec: 3600,
    });
    const url = ticket.url.replace("http://127.0.0.1:1", base);
    const kinora = await timed(() => put(url, file, bytes, ticket.headers));
    server.close();
    const mb = bytes / 1048576;
    return [
      {
        name: `upload ${mb.toFixed(0)} MB via local store`,
        value: mb / kinora.sec,
        unit: "MB/s",
        baselineName: "bare node:http pipe",
        baseline: mb / baseline.sec,
        better: "higher",
        aim: "≥ 0.7",
      },
      {
        name: "upload peak RSS growth (local store)",
        value: Math.max(1, kinora.rssGrowthMb),
        unit: "MB",
        baselineName: "bare pipe",
        baseline: Math.max(1, baseline.rssGrowthMb),
        better: "lower",
        aim: "flat (< 100 MB)",
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 512 MB by default, 2 GiB with BENCH_FULL=1, 64 MB with BENCH_QUICK=1. */
export function uploadBenchBytes(quick: boolean): number {
  if (process.env.BENCH_FULL === "1") return 2 * 1024 ** 3;
  return quick ? 64 * 1024 ** 2 : 512 * 1024 ** 2;
}

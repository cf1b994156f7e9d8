/** Helpers for restore tests: tiny generated videos, upload through the job's URL, run workers. */
import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { TestApp } from "../app.js";

const run = promisify(execFile);

/** A small test-pattern video with a tone: 320x240, `seconds` long, H.264 + AAC in MP4. */
export async function makeVideo(dir: string, seconds: number, name = `v${seconds}.mp4`) {
  const out = path.join(dir, name);
  await run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `testsrc=size=320x240:rate=25:duration=${seconds}`,
    "-f",
    "lavfi",
    "-i",
    `sine=frequency=440:duration=${seconds}`,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-shortest",
    out,
  ]);
  return { path: out, sizeBytes: (await stat(out)).size };
}

export async function ffprobeDuration(file: string): Promise<number> {
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration",
    "-of",
    "csv=p=0",
    file,
  ]);
  return Number(stdout.trim());
}

export function jobBody(video: { sizeBytes: number }, extra: Record<string, unknown> = {}) {
  return {
    duration_sec: 2,
    quality: "faithful",
    filename: "home-movie.mp4",
    content_type: "video/mp4",
    size: video.sizeBytes,
    ...extra,
  };
}

/** PUTs the file to the job's upload URL with its headers; returns the status. */
export async function upload(
  t: TestApp,
  created: { upload_url: string; upload_headers: Record<string, string> },
  file: string,
): Promise<number> {
  const body = await readFile(file);
  const res = await t.fetchUrl(created.upload_url, {
    method: "PUT",
    headers: created.upload_headers,
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

export async function balanceOf(t: TestApp, walletId: string): Promise<number> {
  const row = await t.deps.db
    .selectFrom("wallets")
    .select("balance_cents")
    .where("id", "=", walletId)
    .executeTakeFirstOrThrow();
  return Number(row.balance_cents);
}

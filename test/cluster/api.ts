/**
 * A caller of one kinora node over real HTTP, for the cluster test: JSON requests, and the
 * create → upload (presigned URL) → start steps of restores and clips, where the start may go
 * to another node than the create.
 */
import { readFile } from "node:fs/promises";

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
  body: any;
  headers: Headers;
}

export interface Job {
  id: string;
  kind: "restore" | "clip";
  status?: string;
  error?: string | null;
  /** download_url (restore) or video_url (clip) once done. */
  url?: string | null;
}

export interface Api {
  url: string;
  get(path: string, bearer?: string): Promise<Reply>;
  post(path: string, body: unknown, bearer?: string): Promise<Reply>;
  /** Creates a restore here, uploads `file`, starts it through `startVia`. */
  restore(key: string, file: string, durationSec: number, startVia: Api): Promise<Job>;
  /** Creates a clip here, uploads `image`, starts it through `startVia`. */
  clip(key: string, image: Buffer, startVia: Api): Promise<Job>;
}

async function send(url: string, init: RequestInit): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Non-JSON bodies stay text.
  }
  return { status: res.status, body, headers: res.headers };
}

async function put(created: Reply, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
  if (created.status !== 200) {
    throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  }
  const res = await fetch(created.body.upload_url, {
    method: "PUT",
    headers: created.body.upload_headers,
    body: bytes,
  });
  if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`);
}

export function api(base: string): Api {
  const auth = (bearer?: string): Record<string, string> =>
    bearer ? { authorization: `Bearer ${bearer}` } : {};
  const self: Api = {
    url: base,
    get: (path, bearer) => send(`${base}${path}`, { headers: auth(bearer) }),
    post: (path, body, bearer) =>
      send(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...auth(bearer) },
        body: JSON.stringify(body),
      }),
    async restore(key, file, durationSec, startVia) {
      const bytes = new Uint8Array(await readFile(file));
      const created = await self.post(
        "/cloud/jobs",
        {
          duration_sec: durationSec,
          quality: "faithful",
          filename: "family.mp4",
          content_type: "video/mp4",
          size: bytes.byteLength,
        },
        key,
      );
      await put(created, bytes);
      const id = created.body.job.id as string;
      const started = await startVia.post(`/cloud/jobs/${id}/start`, {}, key);
      if (started.status !== 200) throw new Error(`start ${id}: ${started.status}`);
      return { id, kind: "restore" };
    },
    async clip(key, image, startVia) {
      const created = await self.post(
        "/motion/jobs",
        { prompt: "slow push in, rain", content_type: "image/jpeg", image_bytes: image.length },
        key,
      );
      await put(created, new Uint8Array(image));
      const id = created.body.job.id as string;
      const started = await startVia.post(`/motion/jobs/${id}/start`, {}, key);
      if (started.status !== 200) throw new Error(`start ${id}: ${started.status}`);
      return { id, kind: "clip" };
    },
  };
  return self;
}

const FINAL = new Set(["done", "failed", "refunded", "refused", "cancelled", "expired"]);

/** Polls every job, alternating nodes, until each is in a final status; returns them. */
export async function waitForTerminal(
  jobs: Job[],
  key: string,
  via: (i: number) => Api,
  timeoutMs: number,
): Promise<Job[]> {
  const deadline = Date.now() + timeoutMs;
  const out = jobs.map((j) => ({ ...j }));
  for (let round = 0; ; round++) {
    for (const [i, job] of out.entries()) {
      if (job.status && FINAL.has(job.status)) continue;
      const path = job.kind === "restore" ? `/cloud/jobs/${job.id}` : `/motion/jobs/${job.id}`;
      const res = await via(round + i).get(path, key);
      const j = res.body?.job;
      Object.assign(job, {
        status: j?.status,
        error: j?.error,
        url: j?.download_url ?? j?.video_url,
      });
    }
    if (out.every((j) => j.status && FINAL.has(j.status))) return out;
    if (Date.now() > deadline) {
      throw new Error(`jobs unfinished: ${out.map((j) => `${j.id}=${j.status}`).join(", ")}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/**
 * No file outlives its job's refund (issue 21, item 8), over real HTTP: an upload still
 * streaming when its job is cancelled (the price goes back at once) is refused with 409
 * wrong_state when its last byte arrives, and nothing is left in storage. The same upload
 * without the cancel is stored (the control).
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { balanceOf, jobBody } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({ features: [restoreFeature({ noExecutor: true })] });
});
afterAll(async () => {
  await s?.close();
});

const SIZE = 256 * 1024;

async function api(method: string, path: string, key: string, body?: object) {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** PUTs SIZE bytes in two halves; `between` runs after the first half is on the server. */
function streamUpload(
  url: string,
  headers: Record<string, string>,
  between: () => Promise<void>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "PUT",
      headers: { ...headers, "content-length": String(SIZE) },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.write(Buffer.alloc(SIZE / 2, 1));
    between().then(
      () => req.end(Buffer.alloc(SIZE / 2, 2)),
      (err) => {
        req.destroy();
        reject(err);
      },
    );
  });
}

async function newJob() {
  const { key, walletId } = await s.t.newWallet(5000);
  const created = await api("POST", "/cloud/jobs", key, jobBody({ sizeBytes: SIZE }));
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const row = await s.t.deps.db
    .selectFrom("restore_jobs")
    .select("input_key")
    .where("id", "=", created.body.job.id)
    .executeTakeFirstOrThrow();
  return { key, walletId, created: created.body, inputKey: row.input_key };
}

describe("an upload whose job is cancelled while it streams", () => {
  it("is refused when it ends and its bytes are deleted; the refund stands", async () => {
    const { key, walletId, created, inputKey } = await newJob();
    const charged = await balanceOf(s.t, walletId);
    expect(charged).toBeLessThan(5000);
    const put = await streamUpload(created.upload_url, created.upload_headers, async () => {
      // Let the first half reach the server, then cancel.
      await new Promise((r) => setTimeout(r, 200));
      const cancel = await api("POST", `/cloud/jobs/${created.job.id}/cancel`, key);
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
      expect(cancel.body.job.status).toBe("cancelled");
    });
    expect(put.status, put.body).toBe(409);
    expect(JSON.parse(put.body).code).toBe("wrong_state");
    expect(await s.t.deps.storage.head(inputKey)).toBeNull();
    expect(await balanceOf(s.t, walletId)).toBe(5000);
  });

  it("without the cancel, the same streamed upload is stored (control)", async () => {
    const { created, inputKey } = await newJob();
    const put = await streamUpload(created.upload_url, created.upload_headers, async () => {
      await new Promise((r) => setTimeout(r, 200));
    });
    expect(put.status, put.body).toBe(200);
    expect((await s.t.deps.storage.head(inputKey))?.sizeBytes).toBe(SIZE);
  });
});

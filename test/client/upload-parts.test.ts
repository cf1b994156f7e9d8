/**
 * The SDK's uploader in parts (`uploadParts`) against the server's upload services on a real
 * database and real stores over HTTP (the local store; S3 as s3rver behind the multipart fake):
 * a file in five 5 MiB parts sent in parallel, a part whose connection breaks mid-body tried
 * again, a run stopped after two parts resumed by a second run that sends only the missing
 * three, and a changed file whose arrived parts no longer match sent again.
 */
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PartsTransport, uploadParts } from "../../packages/client/src/index.js";
import { completeUpload } from "../../src/services/uploads/finish.js";
import {
  openUpload,
  partTickets,
  recordPart,
  type UploadsDeps,
  uploadOf,
  uploadProgress,
} from "../../src/services/uploads/uploads.js";
import { openTestDatabase, type TestDatabase } from "../db.js";
import { coreDeps } from "../deps.js";
import { localPartsStore, type PartsStore, s3PartsStore } from "../storage/multipart-stores.js";
import { makeTempDir } from "../storage/temp-files.js";

const MIB = 1024 * 1024;
const SIZE = 4 * 5 * MIB + 1 * MIB + 333;

let database: TestDatabase;
let scratch: { dir: string; cleanup: () => Promise<void> };
let file: string;
beforeAll(async () => {
  database = await openTestDatabase();
  scratch = await makeTempDir("kinora-parts-client-");
  file = join(scratch.dir, "tape.dv");
  await writeFile(file, randomBytes(SIZE));
});
afterAll(async () => {
  await database?.cleanup();
  await scratch?.cleanup();
});

/** The transport a job kind's operations give the SDK, here straight over the services. */
function transportFor(deps: UploadsDeps, key: string): PartsTransport {
  const row = async () => {
    const found = await uploadOf(deps, key);
    if (!found) throw new Error("no upload");
    return found;
  };
  return {
    state: async () => uploadProgress(deps, await row()),
    links: async (parts) => partTickets(deps, await row(), parts),
    report: async (p) => {
      await recordPart(deps, await row(), {
        partNumber: p.part_number,
        etag: p.etag,
        checksum: p.checksum,
      });
    },
  };
}

/** A fetch that counts PUTs per part, and breaks the connection of the first PUT of `breakPart`. */
function countingFetch(breakPart?: number) {
  const puts: number[] = [];
  let broken = false;
  const doFetch = (async (url: string, init: RequestInit) => {
    const n = puts.length;
    puts.push(n);
    if (breakPart !== undefined && !broken && init.method === "PUT") {
      const body = init.body as ReadableStream<Uint8Array>;
      const tagged = String((init.headers as Record<string, string>)["x-amz-checksum-sha256"]);
      if (tagged === (await partHash(breakPart))) {
        broken = true;
        // The body fails after 2 MiB: the request is cut mid-body, as by a dropped connection.
        const reader = body.getReader();
        let sent = 0;
        const cut = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent >= 2 * MIB) {
              controller.error(new Error("connection reset by the test"));
              return;
            }
            const { done, value } = await reader.read();
            if (done) return controller.close();
            sent += value.byteLength;
            controller.enqueue(value);
          },
        });
        return fetch(url, { ...init, body: cut });
      }
    }
    return fetch(url, init);
  }) as typeof fetch;
  return { doFetch, puts };
}

async function partHash(n: number): Promise<string> {
  const { createHash } = await import("node:crypto");
  const bytes = await readFile(file);
  return createHash("sha256")
    .update(bytes.subarray((n - 1) * 5 * MIB, Math.min(n * 5 * MIB, SIZE)))
    .digest("base64");
}

describe.each([
  ["local store", localPartsStore],
  ["S3 (s3rver + the multipart fake)", () => s3PartsStore()],
])("uploadParts on the %s", (name, make) => {
  let s: PartsStore;
  let deps: UploadsDeps;
  beforeAll(async () => {
    s = await make();
    deps = { ...coreDeps(database), storage: s.store };
  });
  afterAll(async () => {
    await s?.close();
  });
  const open = (key: string) =>
    openUpload(deps, {
      key,
      contentType: "video/dv",
      sizeBytes: SIZE,
      partBytes: 5 * MIB,
      checksum: "sha256",
      expiresAt: new Date(Date.now() + 3600_000),
    });
  const check = async (key: string) => {
    const row = await uploadOf(deps, key);
    await completeUpload(deps, row as NonNullable<typeof row>);
    const got = join(scratch.dir, `got-${name.length}-${key.length}`);
    await s.store.downloadToFile(key, got);
    expect((await readFile(got)).equals(await readFile(file))).toBe(true);
  };

  it("sends five parts in parallel, with progress, and tries again a part whose connection broke", async () => {
    const key = `restore/rj_c${name.length}a/input`;
    await open(key);
    const { doFetch } = countingFetch(2);
    const seen: number[] = [];
    const retries: string[] = [];
    let inFlightMax = 0;
    let inFlight = 0;
    const result = await uploadParts(transportFor(deps, key), file, {
      concurrency: 4,
      retryBaseMs: 10,
      fetch: ((url: string, init: RequestInit) => {
        inFlight++;
        inFlightMax = Math.max(inFlightMax, inFlight);
        return doFetch(url, init).finally(() => inFlight--);
      }) as typeof fetch,
      onProgress: (done, total) => {
        expect(total).toBe(SIZE);
        seen.push(done);
      },
      onRetry: (n, _attempt, _delay, reason) => retries.push(`${n}: ${reason}`),
    });
    expect(result.sent).toEqual([1, 2, 3, 4, 5]);
    // Part 2 again; on the local store the retry may find the cut request not yet noticed by
    // the server (409: part 2 is arriving on another connection) and wait once more.
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries.every((r) => r.startsWith("2: "))).toBe(true);
    expect(result.puts).toBe(5 + retries.length);
    expect(inFlightMax).toBeGreaterThan(1);
    expect(seen.at(-1)).toBe(SIZE);
    await check(key);
  });

  it("resumes a run stopped after two parts: the same upload, only the three missing parts sent", async () => {
    const key = `restore/rj_c${name.length}b/input`;
    await open(key);
    const stop = new AbortController();
    const first = countingFetch();
    // Killed as the third part was about to go, once the store answered the two before it. (A
    // lane sends its next part before the last one's answer, and reports run beside the next
    // part, so the kill is placed by the PUTs' answers, not by the reports.)
    const answered: Promise<Response>[] = [];
    const killing = (async (url: string, init: RequestInit) => {
      if (first.puts.length === 2) {
        await Promise.allSettled(answered);
        stop.abort(new Error("killed"));
        throw stop.signal.reason;
      }
      const answer = first.doFetch(url, init);
      answered.push(answer);
      return answer;
    }) as typeof fetch;
    await expect(
      uploadParts(transportFor(deps, key), file, {
        concurrency: 1,
        signal: stop.signal,
        fetch: killing,
      }),
    ).rejects.toThrow("killed");
    expect(first.puts.length).toBe(2);
    const again = countingFetch();
    const firstProgress: number[] = [];
    const result = await uploadParts(transportFor(deps, key), file, {
      fetch: again.doFetch,
      onProgress: (done) => firstProgress.push(done),
    });
    expect(result).toMatchObject({ had: [1, 2], sent: [3, 4, 5], puts: 3 });
    expect(firstProgress[0]).toBe(10 * MIB);
    await check(key);
  });

  it("sends again an arrived part that no longer matches the file", async () => {
    const key = `restore/rj_c${name.length}c/input`;
    await open(key);
    const other = join(scratch.dir, `other-${name.length}.dv`);
    const bytes = await readFile(file);
    const changed = Buffer.from(bytes);
    changed[10] = (changed[10] ?? 0) ^ 1;
    await writeFile(other, changed);
    await uploadParts(transportFor(deps, key), other, { concurrency: 2 });
    const result = await uploadParts(transportFor(deps, key), file, { concurrency: 2 });
    expect(result).toMatchObject({ had: [2, 3, 4, 5], sent: [1] });
    await check(key);
  });

  it("refuses a file of another size than the plan before sending anything", async () => {
    const key = `restore/rj_c${name.length}d/input`;
    await open(key);
    const small = join(scratch.dir, "small.dv");
    await writeFile(small, randomBytes(1000));
    await expect(uploadParts(transportFor(deps, key), small)).rejects.toThrow(
      /the file is 1000 bytes but the upload was planned for/,
    );
  });
});

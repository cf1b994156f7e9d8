/**
 * The upload use cases on a real database (PGlite, or PostgreSQL with DATABASE_URL) and real
 * stores over HTTP: the local store, S3 through s3rver behind the multipart fake, and s3rver
 * alone (no ListParts, no Abort: kinora's own record of the parts is all there is).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../../test/db.js";
import { coreDeps, type TestClock, testClock } from "../../../test/deps.js";
import {
  localPartsStore,
  type PartsStore,
  putPart,
  s3PartsStore,
  sha256,
} from "../../../test/storage/multipart-stores.js";
import type { ApiError } from "../../domain/errors.js";
import { partOffset, partSize, planParts } from "../../domain/uploads.js";
import { abortUpload, completeUpload } from "./finish.js";
import { REABORT_AFTER_MS, sweepUploads } from "./sweep.js";
import {
  openUpload,
  partTickets,
  recordPart,
  type UploadRow,
  type UploadsDeps,
  uploadOf,
  uploadProgress,
} from "./uploads.js";

const MIB = 1024 * 1024;
const FILE = randomBytes(4 * 5 * MIB + 2 * MIB + 5);
const PLAN = planParts(FILE.length, 5 * MIB);
const bytesOf = (n: number) =>
  FILE.subarray(partOffset(PLAN, n), partOffset(PLAN, n) + partSize(PLAN, n));

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.cleanup();
});

function depsFor(s: PartsStore, clock: TestClock) {
  const ended: { outcome: string; reason: string | null; parts: number }[] = [];
  const deps: UploadsDeps = {
    ...coreDeps(database, clock),
    storage: s.store,
    events: {
      uploadInPartsEnded: (e: (typeof ended)[number]) => ended.push(e),
    } as unknown as UploadsDeps["events"],
  };
  return { deps, ended };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!err) throw new Error("expected a refusal");
  return err as ApiError;
}

/** Sends parts `numbers` (in parallel) and reports each; answers their ETags. */
async function send(deps: UploadsDeps, row: UploadRow, numbers: number[], report = true) {
  const tickets = await partTickets(
    deps,
    row,
    numbers.map((n) => ({ part_number: n, sha256: sha256(bytesOf(n)) })),
  );
  await Promise.all(
    tickets.map(async (t) => {
      const res = await putPart(t, bytesOf(t.part_number));
      expect(res.status, await res.clone().text()).toBe(200);
      const etag = res.headers.get("etag") ?? "";
      if (report) {
        await recordPart(deps, row, {
          partNumber: t.part_number,
          etag,
          sha256: sha256(bytesOf(t.part_number)),
        });
      }
    }),
  );
}

describe.each([
  ["local store", localPartsStore],
  ["S3 (s3rver + the multipart fake)", () => s3PartsStore()],
  ["S3 (s3rver alone)", () => s3PartsStore({ front: false })],
])("uploads in parts on the %s", (name, make) => {
  let s: PartsStore;
  const clock = testClock();
  const lists = !name.endsWith("alone)");
  beforeAll(async () => {
    s = await make();
  });
  afterAll(async () => {
    await s?.close();
  });
  const open = (deps: UploadsDeps, key: string) =>
    openUpload(deps, {
      key,
      contentType: "video/dv",
      sizeBytes: FILE.length,
      partBytes: 5 * MIB,
      checksum: "sha256",
      expiresAt: new Date(clock.now().getTime() + 3600_000),
    });

  it("opens once per file, refuses bad part requests changing nothing, resumes and completes", async () => {
    const { deps, ended } = depsFor(s, clock);
    const key = `restore/rj_up${name.length}a/input`;
    const row = await open(deps, key);
    expect(await open(deps, key)).toEqual(row);
    expect([row.part_count, Number(row.part_size_bytes)]).toEqual([5, 5 * MIB]);
    const good = sha256(bytesOf(1));
    for (const [parts, field] of [
      [[{ part_number: 6, sha256: good }], "parts.0.part_number"],
      [[{ part_number: 0, sha256: good }], "parts.0.part_number"],
      [[{ part_number: 1, sha256: "abc=" }], "parts.0.sha256"],
      [
        [
          { part_number: 2, sha256: good },
          { part_number: 2, sha256: good },
        ],
        "parts.1.part_number",
      ],
      [[], "parts"],
    ] as const) {
      const err = await refusal(partTickets(deps, row, parts));
      expect([err.code, err.detail.split(":")[0]]).toEqual(["invalid_field", field]);
    }
    await send(deps, row, [3, 1]);
    const mid = await uploadProgress(deps, row);
    expect(mid).toMatchObject({
      status: "open",
      part_count: 5,
      received_parts: 2,
      received_bytes: 10 * MIB,
      missing: [2, 4, 5],
    });
    expect(mid.parts.map((p) => [p.part_number, p.sha256])).toEqual([
      [1, sha256(bytesOf(1))],
      [3, sha256(bytesOf(3))],
    ]);
    const early = await refusal(completeUpload(deps, row));
    expect(early.code).toBe("not_uploaded");
    expect(early.detail).toMatch(/^Parts 2, 4–5 of 5 have not arrived/);
    expect((await uploadOf(deps, key))?.status).toBe("open");
    // Part 2 arrives but its report is lost: a store that lists finds it anyway.
    await send(deps, row, [2], false);
    expect((await uploadProgress(deps, row)).missing).toEqual(lists ? [4, 5] : [2, 4, 5]);
    await send(deps, row, lists ? [5, 4] : [5, 4, 2]);
    const done = await completeUpload(deps, row);
    expect(done.status).toBe("completed");
    expect(await s.store.head(key)).toEqual({ sizeBytes: FILE.length, contentType: "video/dv" });
    const twice = await refusal(completeUpload(deps, done));
    expect(twice.code).toBe("already_uploaded");
    expect(await uploadProgress(deps, done)).toMatchObject({ status: "completed", missing: [] });
    expect(ended).toEqual([{ outcome: "completed", reason: null, parts: 5, bytes: 0 }]);
    await s.store.delete(key);
  });

  it("refuses a reported part the store does not hold, or of another size than the plan", async () => {
    if (!lists) return;
    const { deps } = depsFor(s, clock);
    const key = `restore/rj_up${name.length}b/input`;
    const row = await open(deps, key);
    const missing = await refusal(
      recordPart(deps, row, { partNumber: 2, etag: '"abc"', sha256: sha256(bytesOf(2)) }),
    );
    expect(missing.code).toBe("not_uploaded");
    await send(deps, row, [1]);
    const wrongTag = await refusal(
      recordPart(deps, row, { partNumber: 1, etag: '"abc"', sha256: sha256(bytesOf(1)) }),
    );
    expect(wrongTag.code).toBe("not_uploaded");
    const outOfRange = await refusal(
      recordPart(deps, row, { partNumber: 9, etag: '"abc"', sha256: sha256(bytesOf(1)) }),
    );
    expect([outOfRange.code, outOfRange.detail]).toEqual([
      "invalid_field",
      "part_number: must be 1 to 5.",
    ]);
    expect((await uploadProgress(deps, row)).received_parts).toBe(1);
    await abortUpload(deps, key, "cancelled");
  });

  it("aborts: parts freed, counted, later parts and completion refused", async () => {
    const { deps, ended } = depsFor(s, clock);
    const key = `restore/rj_up${name.length}c/input`;
    const row = await open(deps, key);
    await send(deps, row, [1, 2]);
    const [late] = await partTickets(deps, row, [{ part_number: 3, sha256: sha256(bytesOf(3)) }]);
    expect(await abortUpload(deps, key, "cancelled")).toBe(true);
    expect(await abortUpload(deps, key, "cancelled")).toBe(false);
    expect(ended).toEqual([{ outcome: "aborted", reason: "cancelled", parts: 2, bytes: 10 * MIB }]);
    const aborted = (await uploadOf(deps, key)) as UploadRow;
    expect([aborted.status, aborted.abort_reason]).toEqual(["aborted", "cancelled"]);
    expect((await refusal(completeUpload(deps, aborted))).code).toBe("wrong_state");
    if (lists) {
      expect((await putPart(late as never, bytesOf(3))).status).toBe(404);
      expect((await s.files()).filter((f) => f.includes(aborted.store_upload_id))).toEqual([]);
    }
  });

  it("is swept: expired and unwanted uploads aborted, aborted ones aborted again, records purged", async () => {
    const { deps, ended } = depsFor(s, clock);
    const keep = await open(deps, `restore/rj_up${name.length}d/input`);
    const old = await openUpload(deps, {
      key: `restore/rj_up${name.length}e/input`,
      contentType: "video/dv",
      sizeBytes: FILE.length,
      partBytes: 5 * MIB,
      checksum: "sha256",
      expiresAt: new Date(clock.now().getTime() - 1),
    });
    const unwanted = await open(deps, `restore/rj_up${name.length}f/input`);
    await send(deps, old, [1]);
    const guard = async (key: string) =>
      key === unwanted.object_key
        ? ({ ok: false, detail: "the restore job is cancelled" } as const)
        : ({ ok: true, once: true } as const);
    const sweepDeps = { ...deps, retentionHours: 48 };
    const first = await sweepUploads(sweepDeps, guard);
    expect(first).toMatchObject({ expired: 1, jobEnded: 1 });
    expect(ended.map((e) => `${e.outcome} ${e.reason} ${e.parts}`).sort()).toEqual([
      "aborted expired 1",
      "aborted job_ended 0",
    ]);
    expect((await uploadOf(deps, keep.object_key))?.status).toBe("open");
    const deletes = () => s.front?.calls.filter((c) => c === "DELETE uploadId").length ?? 0;
    const before = deletes();
    clock.advance(REABORT_AFTER_MS + 1000);
    // The two aborted here, and those of the tests before: each aborted once more, once.
    const again = (await sweepUploads(sweepDeps, guard)).reaborted;
    expect(again).toBeGreaterThanOrEqual(2);
    if (s.front) expect(deletes()).toBe(before + again);
    expect((await sweepUploads(sweepDeps, guard)).reaborted).toBe(0);
    clock.advance(49 * 3600_000);
    expect((await sweepUploads(sweepDeps, guard)).purged).toBeGreaterThanOrEqual(2);
    expect(await uploadOf(deps, old.object_key)).toBeUndefined();
    await abortUpload(deps, keep.object_key, "cancelled");
  });
});

/**
 * The state of an upload of many parts, on a real database (PGlite, or PostgreSQL with
 * DATABASE_URL): a resumer's read records, in batches, every part the store holds that nobody
 * reported and forgets those it no longer holds; a brief report answers the counts alone,
 * the same size at part 1 and at part 1,200.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../../test/db.js";
import { coreDeps, testClock } from "../../../test/deps.js";
import { localPartsStore, type PartsStore } from "../../../test/storage/multipart-stores.js";
import type { StoredPart } from "../../storage/blob-store.js";
import { openUpload, recordPart, type UploadsDeps, uploadProgress } from "./uploads.js";

const MIB = 1024 * 1024;
/** More parts than one INSERT records (500 rows a statement), fewer than S3's 10,000. */
const PARTS = 1200;
const crc = (n: number) => Buffer.from([0, 0, n >> 8, n & 255]).toString("base64");
const held = (n: number, etag = `"e${n}"`): StoredPart => ({
  partNumber: n,
  sizeBytes: 5 * MIB,
  etag,
  checksum: crc(n),
});

let database: TestDatabase;
let store: PartsStore;
beforeAll(async () => {
  database = await openTestDatabase();
  store = await localPartsStore();
});
afterAll(async () => {
  await store?.close();
  await database?.cleanup();
});

describe("an upload of many parts", () => {
  it("records what the store holds in batches, forgets what it lost, and reports briefly", async () => {
    const clock = testClock();
    // The store's listing is set by the test: writing 6 GB of parts would prove nothing more.
    let listing: StoredPart[] = [];
    const deps: UploadsDeps = {
      ...coreDeps(database, clock),
      storage: {
        ...store.store,
        multipart: {
          ...store.store.multipart,
          listParts: async (_key, _id, opts) =>
            opts?.only === undefined ? listing : listing.filter((p) => p.partNumber === opts.only),
        },
      },
      events: { uploadInPartsEnded: () => {} } as unknown as UploadsDeps["events"],
    };
    const row = await openUpload(deps, {
      key: "restore/rj_manyparts/input",
      contentType: "video/dv",
      sizeBytes: PARTS * 5 * MIB,
      partBytes: 5 * MIB,
      checksum: "crc32",
      expiresAt: new Date(clock.now().getTime() + 3600_000),
    });
    expect(row.part_count).toBe(PARTS);

    // One part reported the usual way; the rest arrived and were never reported (a crash).
    listing = [held(1)];
    const first = await recordPart(deps, row, { partNumber: 1, etag: '"e1"', checksum: crc(1) });
    expect([first.received_parts, first.parts?.length, first.missing?.length]).toEqual([
      1,
      1,
      PARTS - 1,
    ]);
    listing = Array.from({ length: PARTS }, (_, i) => held(i + 1));
    const resumed = await uploadProgress(deps, row);
    expect(resumed.received_parts).toBe(PARTS);
    expect(resumed.received_bytes).toBe(PARTS * 5 * MIB);
    expect(resumed.missing).toEqual([]);
    expect(resumed.parts.map((p) => p.part_number)).toEqual(listing.map((p) => p.partNumber));
    expect(resumed.parts[PARTS - 1]).toEqual({
      part_number: PARTS,
      size_bytes: 5 * MIB,
      etag: `"e${PARTS}"`,
      checksum: crc(PARTS),
    });

    // Part 7 was sent again (a new ETag) and part 9 is gone from the store.
    listing = listing
      .filter((p) => p.partNumber !== 9)
      .map((p) => (p.partNumber === 7 ? held(7, '"x7"') : p));
    const after = await uploadProgress(deps, row);
    expect([after.received_parts, after.missing]).toEqual([PARTS - 1, [9]]);
    expect(after.parts.find((p) => p.part_number === 7)?.etag).toBe('"x7"');

    // Part 9 arrives again and is reported briefly: the counts, not 1,200 records.
    listing = [...listing, held(9)];
    const brief = await recordPart(
      deps,
      row,
      { partNumber: 9, etag: '"e9"', checksum: crc(9) },
      { brief: true },
    );
    expect(brief).toEqual({
      status: "open",
      size_bytes: PARTS * 5 * MIB,
      part_size_bytes: 5 * MIB,
      part_count: PARTS,
      checksum: "crc32",
      received_bytes: PARTS * 5 * MIB,
      received_parts: PARTS,
      expires_at: row.expires_at.toISOString(),
    });
    expect(JSON.stringify(brief).length).toBeLessThan(300);
  });
});

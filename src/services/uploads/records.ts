/**
 * Row access for uploads in parts: kinora's own record of each upload and of the parts that
 * arrived. Every status change is conditional on the status it leaves, so a complete, an abort
 * and the sweeper racing on one upload have one winner.
 */
import type { Kysely, Selectable } from "kysely";
import type {
  DB,
  MultipartUploadPartsTable,
  MultipartUploadStatus,
  MultipartUploadsTable,
} from "../../db/schema.js";
import type { PartPlan } from "../../domain/uploads.js";

type Db = Kysely<DB>;

/** A row of multipart_uploads. */
export type UploadRow = Selectable<MultipartUploadsTable>;
/** A row of multipart_upload_parts. */
export type PartRow = Selectable<MultipartUploadPartsTable>;

/** An upload's plan of parts, from its row. */
export const planOf = (row: UploadRow): PartPlan => ({
  sizeBytes: Number(row.size_bytes),
  partSizeBytes: Number(row.part_size_bytes),
  partCount: row.part_count,
});

/** Every part number of a plan, 1 to its count. */
export const allParts = (plan: PartPlan) => Array.from({ length: plan.partCount }, (_, i) => i + 1);

/** The unfinished (open or completing) upload of `key`, if any. */
export function findUnfinished(db: Db, key: string): Promise<UploadRow | undefined> {
  return db
    .selectFrom("multipart_uploads")
    .selectAll()
    .where("object_key", "=", key)
    .where("status", "in", ["open", "completing"])
    .executeTakeFirst();
}

/** The latest upload of `key`, whatever became of it. */
export function findLatest(db: Db, key: string): Promise<UploadRow | undefined> {
  return db
    .selectFrom("multipart_uploads")
    .selectAll()
    .where("object_key", "=", key)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** Inserts an upload; undefined when another unfinished upload of the key won the race. */
export async function insertUpload(
  db: Db,
  row: Omit<UploadRow, "completed_at" | "aborted_at" | "abort_reason" | "abort_confirmed_at">,
): Promise<UploadRow | undefined> {
  return db
    .insertInto("multipart_uploads")
    .values(row)
    .onConflict((oc) =>
      oc.column("object_key").where("status", "in", ["open", "completing"]).doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Moves the upload from one of `from` to `to`; the moved row, or undefined if it had moved. */
export function moveUpload(
  db: Db,
  id: string,
  from: readonly MultipartUploadStatus[],
  to: MultipartUploadStatus,
  now: Date,
  set: Partial<Pick<UploadRow, "completed_at" | "aborted_at" | "abort_reason">> = {},
): Promise<UploadRow | undefined> {
  return db
    .updateTable("multipart_uploads")
    .set({ status: to, updated_at: now, ...set })
    .where("id", "=", id)
    .where("status", "in", [...from])
    .returningAll()
    .executeTakeFirst();
}

/** The recorded parts of an upload, by number. */
export function partsOf(db: Db, uploadId: string): Promise<PartRow[]> {
  return db
    .selectFrom("multipart_upload_parts")
    .selectAll()
    .where("upload_id", "=", uploadId)
    .orderBy("part_number")
    .execute();
}

/** Records (or replaces) a part that arrived. */
export function savePart(db: Db, part: PartRow): Promise<void> {
  return saveParts(db, [part]);
}

/** Rows per INSERT when many parts are recorded at once (bind parameters: 6 a row). */
const SAVE_BATCH = 500;

/**
 * Records (or replaces) many parts, a few hundred rows a statement: a resumer's first read
 * after a crash may find thousands the store holds and nobody reported (9,000 one at a time
 * took 8.8-9.2 s on PGlite).
 */
export async function saveParts(db: Db, parts: readonly PartRow[]): Promise<void> {
  for (let i = 0; i < parts.length; i += SAVE_BATCH) {
    await db
      .insertInto("multipart_upload_parts")
      .values(parts.slice(i, i + SAVE_BATCH))
      .onConflict((oc) =>
        oc.columns(["upload_id", "part_number"]).doUpdateSet((eb) => ({
          size_bytes: eb.ref("excluded.size_bytes"),
          etag: eb.ref("excluded.etag"),
          checksum: eb.ref("excluded.checksum"),
          received_at: eb.ref("excluded.received_at"),
        })),
      )
      .execute();
  }
}

/** Forgets parts the store no longer holds. */
export async function dropParts(
  db: Db,
  uploadId: string,
  numbers: readonly number[],
): Promise<void> {
  if (numbers.length === 0) return;
  await db
    .deleteFrom("multipart_upload_parts")
    .where("upload_id", "=", uploadId)
    .where("part_number", "in", [...numbers])
    .execute();
}

/** The latest upload of each key, with how many parts and bytes were recorded. */
export async function summariesByKey(
  db: Db,
  keys: readonly string[],
): Promise<Map<string, UploadRow & { received_parts: number; received_bytes: number }>> {
  const out = new Map<string, UploadRow & { received_parts: number; received_bytes: number }>();
  if (keys.length === 0) return out;
  const rows = await db
    .selectFrom("multipart_uploads as u")
    .leftJoin("multipart_upload_parts as p", "p.upload_id", "u.id")
    .selectAll("u")
    .select((eb) => [
      eb.fn.count<number>("p.part_number").as("received_parts"),
      eb.fn.coalesce(eb.fn.sum<number>("p.size_bytes"), eb.lit(0)).as("received_bytes"),
    ])
    .where("u.object_key", "in", [...keys])
    .groupBy("u.id")
    .orderBy("u.created_at")
    .orderBy("u.id")
    .execute();
  for (const r of rows) {
    out.set(r.object_key, {
      ...r,
      received_parts: Number(r.received_parts),
      received_bytes: Number(r.received_bytes),
    });
  }
  return out;
}

/** How many parts and bytes of an upload arrived (what an abort throws away). */
export async function receivedTotals(
  db: Db,
  uploadId: string,
): Promise<{ parts: number; bytes: number }> {
  const row = await db
    .selectFrom("multipart_upload_parts")
    .select((eb) => [
      eb.fn.countAll<number>().as("parts"),
      eb.fn.coalesce(eb.fn.sum<number>("size_bytes"), eb.lit(0)).as("bytes"),
    ])
    .where("upload_id", "=", uploadId)
    .executeTakeFirst();
  return { parts: Number(row?.parts ?? 0), bytes: Number(row?.bytes ?? 0) };
}

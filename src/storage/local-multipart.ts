/**
 * Uploads in parts on the local store. Every part is written in place, at its own offset, into
 * one file in the upload's folder beside the object (`.<name>.mp-<upload id>/data`); completing
 * renames that file into place. So joining is a rename on every filesystem: no byte is copied,
 * where per-part files would need a copy of the whole (tens of GB) or reads stitched across
 * hundreds of files for ever after. Each part that arrived whole and matched its checksum has a
 * small record beside the data (`part-00001.json`): the store's own list of parts, as S3 keeps
 * one. Receiving a part is local-part-writer.ts's.
 *
 * One process serves the local store, so the locks are in memory (local-part-locks.ts): one
 * writer per part at a time, the newest PUT winning (a retry after a broken connection stops the
 * writer still waiting on the dead one, then writes), and no part lands while the upload is
 * being completed or aborted.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inLanes } from "../domain/lanes.js";
import type { ChecksumAlgorithm, PartPlan } from "../domain/uploads.js";
import { MultipartError, type StoredPart } from "./blob-store.js";
import { syncDir } from "./file-io.js";
import type { LocalDisk } from "./local-disk.js";
import { createUploadLocks } from "./local-part-locks.js";
import {
  DATA_FILE,
  type PartOutcome,
  recordName,
  stopped,
  writePart,
} from "./local-part-writer.js";
import { createPlanCache, type PlanCache } from "./local-plan-cache.js";
import type { PartClaims } from "./local-token.js";

/** What the folder of an upload in parts records about it. */
export interface LocalPlan extends PartPlan {
  contentType: string;
  checksum: ChecksumAlgorithm;
}

/** The local store's uploads in parts (its HTTP part route calls `receivePart`). */
export interface LocalMultipart {
  create(key: string, plan: LocalPlan): Promise<string>;
  readPlan(key: string, uploadId: string): Promise<LocalPlan | null>;
  receivePart(
    claims: PartClaims,
    chunks: AsyncIterable<Uint8Array>,
    stillAllowed: () => Promise<boolean>,
  ): Promise<PartOutcome>;
  /** The parts' records (with `only`, that part's, if there is one). */
  listParts(key: string, uploadId: string, only?: number): Promise<StoredPart[]>;
  complete(
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string }[],
  ): Promise<{ sizeBytes: number }>;
  abort(key: string, uploadId: string): Promise<void>;
}

const PLAN = "plan.json";
/** Part records read at once when an upload's parts are listed. */
const LIST_READS_IN_FLIGHT = 16;

/**
 * What every call needs: the disk the objects live on, the uploads' in-memory locks, and the
 * plans already read (local-plan-cache.ts).
 */
interface MultipartContext {
  disk: LocalDisk;
  locks: ReturnType<typeof createUploadLocks>;
  plans: PlanCache<LocalPlan>;
}

/** Uploads in parts of `disk`'s objects. */
export function createLocalMultipart(disk: LocalDisk): LocalMultipart {
  const ctx: MultipartContext = { disk, locks: createUploadLocks(), plans: createPlanCache() };
  return {
    create: (key, plan) => createUpload(ctx, key, plan),
    // readPlan and listParts are async so an invalid key rejects, as in every other call.
    readPlan: async (key, uploadId) => readPlan(disk.multipartDir(key, uploadId)),
    receivePart: (claims, chunks, stillAllowed) => receivePart(ctx, claims, chunks, stillAllowed),
    listParts: async (key, uploadId, only) => listRecords(disk.multipartDir(key, uploadId), only),
    complete: (key, uploadId, parts) => completeUpload(ctx, key, uploadId, parts),
    abort: (key, uploadId) => abortUpload(ctx, key, uploadId),
  };
}

/** Opens the upload's folder (its plan and its empty data file); answers the upload id. */
async function createUpload(
  { disk, plans }: MultipartContext,
  key: string,
  plan: LocalPlan,
): Promise<string> {
  const uploadId = randomBytes(16).toString("hex");
  const dir = disk.multipartDir(key, uploadId);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, PLAN), JSON.stringify(plan), { mode: 0o600 });
  // The data file exists from the start: a part opens it without O_CREAT, so a part that
  // arrives after an abort or a completion finds nothing to write into.
  const fh = await open(join(dir, DATA_FILE), "wx", 0o600);
  await fh.close();
  await syncDir(dir);
  plans.set(dir, plan);
  return uploadId;
}

const readPlan = (dir: string) => readJson<LocalPlan>(join(dir, PLAN));

/** The parts' records in the upload's folder (with `only`, that part's, if there is one). */
async function listRecords(dir: string, only?: number): Promise<StoredPart[]> {
  if (only !== undefined) {
    const record = await readJson<StoredPart>(join(dir, recordName(only)));
    return record ? [record] : [];
  }
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") throw gone();
    throw err;
  });
  const files = names.filter((n) => /^part-\d{5}\.json$/.test(n)).sort();
  const records: (StoredPart | null)[] = new Array(files.length).fill(null);
  // Several reads in flight: one at a time, 9,000 records took 3.4-4.3 s to list here.
  await inLanes(
    files,
    async (name, i) => {
      records[i] = await readJson<StoredPart>(join(dir, name));
    },
    { lanes: LIST_READS_IN_FLIGHT },
  );
  return records.filter((r): r is StoredPart => r !== null);
}

/** Writes one part under its lease: the newest PUT of a part wins, an aborted one stops. */
async function receivePart(
  { disk, locks, plans }: MultipartContext,
  claims: PartClaims,
  chunks: AsyncIterable<Uint8Array>,
  stillAllowed: () => Promise<boolean>,
): Promise<PartOutcome> {
  const lease = locks.beginPart(claims.uploadId, claims.partNumber);
  if (typeof lease === "string") return { ok: false, reason: lease };
  try {
    const dir = disk.multipartDir(claims.key, claims.uploadId);
    return await writePart(dir, claims, chunks, {
      lease,
      stillAllowed,
      direct: disk.directWrites,
      plan: () => plans.get(dir, () => readPlan(dir)),
    });
  } catch (err) {
    if (!lease.signal.aborted) throw err;
    return stopped(lease);
  } finally {
    lease.release();
  }
}

/**
 * Joins the parts: with no part arriving, checks them against the plan and renames the data file
 * into place. On failure the upload reopens, its parts kept for a resume.
 */
async function completeUpload(
  { disk, locks, plans }: MultipartContext,
  key: string,
  uploadId: string,
  parts: readonly { partNumber: number; etag: string }[],
): Promise<{ sizeBytes: number }> {
  const dir = disk.multipartDir(key, uploadId);
  const plan = await readPlan(dir);
  if (!plan) throw gone();
  const busy = locks.close(uploadId);
  if (busy !== null) {
    throw new MultipartError("busy", `part ${busy} is still arriving; complete after it`);
  }
  let done = false;
  try {
    checkParts(plan, parts, await listRecords(dir));
    const data = join(dir, DATA_FILE);
    await syncAndCheckSize(data, plan);
    if (!(await disk.adopt(key, data, plan.contentType, { noReplace: true }))) {
      throw new MultipartError("exists", "the object already exists; it is never replaced");
    }
    done = true;
    plans.forget(dir);
    await rm(dir, { recursive: true, force: true });
    return { sizeBytes: plan.sizeBytes };
  } finally {
    if (done) locks.forget(uploadId);
    else locks.reopen(uploadId);
  }
}

/** Flushes the joined data file and checks it holds exactly the plan's bytes. */
async function syncAndCheckSize(data: string, plan: LocalPlan): Promise<void> {
  const fh = await open(data, "r+");
  try {
    await fh.sync();
    const { size } = await fh.stat();
    if (size !== plan.sizeBytes) {
      throw new MultipartError(
        "invalid_part",
        `the parts hold ${size} bytes, not ${plan.sizeBytes}`,
      );
    }
  } finally {
    await fh.close();
  }
}

async function abortUpload(
  { disk, locks, plans }: MultipartContext,
  key: string,
  uploadId: string,
): Promise<void> {
  // Parts still arriving write into the removed file (freed when they close) and cannot
  // record themselves: the folder is gone.
  locks.close(uploadId, { force: true });
  const dir = disk.multipartDir(key, uploadId);
  plans.forget(dir);
  try {
    await rm(dir, { recursive: true, force: true });
  } finally {
    locks.forget(uploadId);
  }
}

/** Every part of the plan, in order, each as stored with the ETag its PUT answered. */
function checkParts(
  plan: LocalPlan,
  given: readonly { partNumber: number; etag: string }[],
  stored: readonly StoredPart[],
): void {
  const byNumber = new Map(stored.map((p) => [p.partNumber, p]));
  if (given.length !== plan.partCount) {
    throw new MultipartError(
      "invalid_part",
      `the upload has ${plan.partCount} parts; ${given.length} were given`,
    );
  }
  given.forEach((part, i) => {
    if (part.partNumber !== i + 1) {
      throw new MultipartError("invalid_part", "parts must be listed once each, in order");
    }
    const held = byNumber.get(part.partNumber);
    if (!held) throw new MultipartError("invalid_part", `part ${part.partNumber} has not arrived`);
    if (held.etag !== part.etag) {
      throw new MultipartError("invalid_part", `part ${part.partNumber}'s ETag differs`);
    }
  });
}

/** A state file this store wrote, or null when it is not there. */
async function readJson<T>(path: string): Promise<T | null> {
  try {
    // cast: a state file this store wrote from T
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch (err) {
    // cast: a failed fs call throws Node's errno error; only its code is compared
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

const gone = () =>
  new MultipartError(
    "no_such_upload",
    "no upload in parts is open here: it was completed or aborted",
  );

/**
 * Receiving one part of an upload in parts on the local store (local-multipart.ts holds the
 * rest): its bytes written in place at the part's offset in the upload's data file, checked
 * against the part's checksum as they pass, then its record written beside the data. A part's
 * record is removed before its bytes are (re)written, so a failed rewrite leaves the part
 * missing, never a record over damaged bytes.
 */
import { type FileHandle, open, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type ChecksumAlgorithm,
  isPartNumber,
  type PartPlan,
  partOffset,
  partSize,
} from "../domain/uploads.js";
import type { StoredPart } from "./blob-store.js";
import { openDirect } from "./direct-writer.js";
import { copyLimited, tempPathFor, type WriteOutcome } from "./file-io.js";
import { type PartLease, SupersededError } from "./local-part-locks.js";
import type { PartClaims } from "./local-token.js";
import { createPartHasher } from "./part-checksum.js";

/** The upload's data file in its folder: every part written in place. */
export const DATA_FILE = "data";
/** A part's record in the upload's folder. */
export const recordName = (n: number) => `part-${String(n).padStart(5, "0")}.json`;

/** What a part's writer needs of the upload's plan. */
export type WritablePlan = PartPlan & { checksum: ChecksumAlgorithm };

/** How a part's PUT ended. */
export type PartOutcome =
  | { ok: true; etag: string; sizeBytes: number }
  | { ok: false; reason: "no_upload" | "closing" | "superseded" | "refused" }
  | { ok: false; reason: "bad_checksum"; bytes: number }
  | Extract<WriteOutcome, { ok: false }>;

/** How a writer whose lease was taken away ends: overtaken by a newer PUT, or aborted. */
export function stopped(lease: PartLease): PartOutcome {
  const superseded = lease.signal.reason instanceof SupersededError;
  return { ok: false, reason: superseded ? "superseded" : "no_upload" };
}

/**
 * Writes part `claims.partNumber` of the upload in `dir` from `chunks`, under `lease` (held by
 * the caller: local-multipart.ts receivePart), and records it once its bytes are down and match.
 */
export async function writePart(
  dir: string,
  claims: PartClaims,
  chunks: AsyncIterable<Uint8Array>,
  {
    lease,
    stillAllowed,
    direct: directWrites,
    plan: planOf,
  }: {
    lease: PartLease;
    stillAllowed: () => Promise<boolean>;
    direct: boolean;
    plan: () => Promise<WritablePlan | null>;
  },
): Promise<PartOutcome> {
  // An older PUT of this part is stopping: not a byte is written until it is done with the file.
  await lease.ready;
  if (lease.signal.aborted) return stopped(lease);
  const plan = await planOf();
  if (!plan) return { ok: false, reason: "no_upload" };
  const n = claims.partNumber;
  if (
    !isPartNumber(plan, n) ||
    partOffset(plan, n) !== claims.offset ||
    partSize(plan, n) !== claims.sizeBytes ||
    plan.checksum !== claims.algorithm
  ) {
    // Only a link signed for another upload of the same id could get here: refuse it whole.
    return { ok: false, reason: "no_upload" };
  }
  // The part's file work before its first byte, side by side: each await here is a turn of an
  // event loop busy with the other parts' sockets, and this part's socket is not read meanwhile.
  // One after another (the plan read from disk, two opens, the record's removal) a part waited
  // 50 ms on average from its lease to its first byte in a 2 GiB upload; with the plan kept in
  // memory (local-plan-cache.ts) and the rest together, 23 (`npm run bench -- parts`, a
  // throwaway trace, two rounds each, 2026-12-02).
  const files = await openPartFiles(dir, recordName(n), directWrites);
  if (!files) return { ok: false, reason: "no_upload" };
  const { fh, direct } = files;
  const hash = createPartHasher(claims.algorithm);
  try {
    // From here (its record removed above) the part is missing until its new bytes are down
    // and checked.
    // Written directly where the filesystem allows (direct-writer.ts; the parts' writes then
    // run side by side, with no gate: a direct write waits for the device, and one at a time
    // left it idle between them, 0.81 of one PUT's rate against 1.06 in one run of 4 rounds
    // each, 2026-12-02). Through the page cache otherwise: one write at a time (the gate), and
    // the file written back in the background every 32 MiB of all the parts' bytes, as one
    // upload's is (the count is the upload's, not this part's: each part's own would flush the
    // others' pages four times as often; tried before, it did not help). Without it each
    // part's datasync below found its 64 MiB and the others' still dirty, and the part's answer
    // waited for them all: 0.82-0.84 of one PUT's rate in three runs against 0.88-0.94 in four
    // with it; 10 GiB 29.4 s against 37.6-39.1 (npm run bench -- parts, 2026-12-01).
    // copyLimited stops at the lease's abort at once, even while no byte comes.
    const outcome = await copyLimited(chunks, fh, claims.sizeBytes, {
      durable: true,
      position: claims.offset,
      signal: lease.signal,
      gate: lease.gate,
      writeBack: lease.writeBack,
      direct,
      onChunk: (chunk) => hash.update(chunk),
    });
    if (!outcome.ok) return outcome;
    const digest = hash.digest();
    if (digest !== claims.checksum) {
      return { ok: false, reason: "bad_checksum", bytes: outcome.bytes };
    }
    // Whatever of the part the background write-back has not reached yet, before its record.
    await fh.datasync();
    if (!(await stillAllowed())) return { ok: false, reason: "refused" };
    // Overtaken meanwhile: the newer writer is waiting on us and will write its own record.
    if (lease.signal.aborted) return stopped(lease);
    const record: StoredPart = {
      partNumber: n,
      sizeBytes: outcome.bytes,
      etag: `"${Buffer.from(digest, "base64").toString("hex")}"`,
      checksum: claims.checksum,
    };
    if (!(await writeRecord(dir, recordName(n), record))) return { ok: false, reason: "no_upload" };
    return { ok: true, etag: record.etag, sizeBytes: record.sizeBytes };
  } finally {
    await direct?.close();
    await fh.close();
  }
}

/**
 * Opens the data file (and again for direct writes) and removes the part's record, together;
 * null when the upload is gone (its data file completed or aborted away).
 */
async function openPartFiles(
  dir: string,
  record: string,
  directWrites: boolean,
): Promise<{ fh: FileHandle; direct: FileHandle | null } | null> {
  const data = join(dir, DATA_FILE);
  const [fh, direct, removed] = await Promise.allSettled([
    open(data, "r+"),
    directWrites ? openDirect(data) : null,
    rm(join(dir, record), { force: true }),
  ]);
  if (
    fh.status === "fulfilled" &&
    direct.status === "fulfilled" &&
    removed.status === "fulfilled"
  ) {
    return { fh: fh.value, direct: direct.value };
  }
  await Promise.all([fh, direct].map((r) => (r.status === "fulfilled" ? r.value?.close() : null)));
  const failure = [fh, direct, removed].find((r) => r.status === "rejected");
  // cast: a failed fs call rejects with Node's errno error; only its code is compared
  if ((failure?.reason as NodeJS.ErrnoException | undefined)?.code === "ENOENT") return null;
  throw failure?.reason;
}

/** Writes a record atomically; false when the folder is gone (the upload was aborted). */
async function writeRecord(dir: string, name: string, record: StoredPart): Promise<boolean> {
  const path = join(dir, name);
  const tmp = tempPathFor(path);
  try {
    await writeFile(tmp, JSON.stringify(record), { mode: 0o600, flag: "wx" });
    await rename(tmp, path);
    return true;
  } catch (err) {
    await rm(tmp, { force: true });
    // cast: a failed fs call throws Node's errno error; only its code is compared
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

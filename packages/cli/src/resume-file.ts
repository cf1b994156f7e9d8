/**
 * Which restore a file in the middle of an upload in parts belongs to, so `kinora restore FILE`
 * run again (after Ctrl-C, a crash, a lost connection) finds the same job — no second charge —
 * and sends only the parts the server lacks. One entry per server and file, kept in
 * `$XDG_CONFIG_HOME/kinora/uploads.json` (0600: a job id paid by card is its capability) and
 * matched by the file's path, size and modification time, so an edited file starts afresh.
 * The entry goes once the job starts; a stale one (the job gone, cancelled, expired) is dropped.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";

/** The job a file's upload belongs to. */
export interface ResumeEntry {
  server: string;
  file: string;
  sizeBytes: number;
  mtimeMs: number;
  jobId: string;
  /** Paid by card: the job is reached without a key. */
  byCard: boolean;
  createdAt: string;
}

/** Entries older than this are dropped: the server's upload window is a day. */
const MAX_AGE_MS = 7 * 24 * 3600_000;

/** The record's path under a config home directory. */
export function resumeFilePath(configHome: string): string {
  return path.join(configHome, "kinora", "uploads.json");
}

async function readEntries(file: string): Promise<ResumeEntry[]> {
  try {
    // cast: JSON.parse is typed any; unknown makes the check below necessary
    const parsed = JSON.parse(await readFile(file, "utf8")) as unknown;
    // cast: written by this module from ResumeEntry[]; an array is all that is checked
    return Array.isArray(parsed) ? (parsed as ResumeEntry[]) : [];
  } catch {
    // Missing or damaged: nothing to resume (a damaged record is rewritten on the next save).
    return [];
  }
}

async function writeEntries(file: string, entries: ResumeEntry[]): Promise<void> {
  const dir = path.dirname(file);
  if (entries.length === 0) {
    await rm(file, { force: true });
    return;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const tmp = path.join(dir, `.uploads.json.${randomBytes(6).toString("hex")}.tmp`);
  await writeFile(tmp, JSON.stringify(entries, null, 2), { mode: 0o600 });
  await rename(tmp, file);
}

/** The file's identity: where it is, its size and when it last changed. */
export async function fileIdentity(file: string) {
  const info = await stat(file);
  return { file: path.resolve(file), sizeBytes: info.size, mtimeMs: Math.floor(info.mtimeMs) };
}

const sameFile = (e: ResumeEntry, server: string, id: Awaited<ReturnType<typeof fileIdentity>>) =>
  e.server === server &&
  e.file === id.file &&
  e.sizeBytes === id.sizeBytes &&
  e.mtimeMs === id.mtimeMs;

/** The job an unfinished upload of this file (on this server) belongs to, if any. */
export async function findResume(
  record: string,
  server: string,
  file: string,
): Promise<ResumeEntry | undefined> {
  const id = await fileIdentity(file);
  return (await readEntries(record)).find((e) => sameFile(e, server, id));
}

/** Remembers the job this file's upload belongs to (replacing an older entry for the file). */
export async function saveResume(
  record: string,
  entry: Omit<ResumeEntry, "createdAt" | "file" | "sizeBytes" | "mtimeMs"> & { file: string },
): Promise<void> {
  const id = await fileIdentity(entry.file);
  const now = Date.now();
  const kept = (await readEntries(record)).filter(
    (e) =>
      !(e.server === entry.server && e.file === id.file) &&
      now - Date.parse(e.createdAt) < MAX_AGE_MS,
  );
  kept.push({ ...entry, ...id, createdAt: new Date(now).toISOString() });
  await writeEntries(record, kept);
}

/** Forgets a job's entry (it started, or it can no longer take its file). */
export async function forgetResume(record: string, jobId: string): Promise<void> {
  const entries = await readEntries(record);
  const kept = entries.filter((e) => e.jobId !== jobId);
  if (kept.length !== entries.length) await writeEntries(record, kept);
}

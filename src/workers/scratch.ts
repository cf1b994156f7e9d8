/**
 * Where workers keep the files of an attempt (the downloaded input, the partial output): one
 * directory per process under a shared root, `<root>/<pid>-<random>/`, each attempt in its own
 * folder inside, removed when the attempt ends and the process directory removed at exit.
 * A process killed mid-job leaves its directory behind; every process sweeps, at start, the
 * directories whose owner stopped touching their `.alive` marker — so scratch is bounded by
 * what live processes are working on, however often workers crash.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** A live process touches its marker this often… */
const TOUCH_MS = 30_000;
/** …so a marker older than this belongs to a process that is gone. */
export const STALE_SCRATCH_MS = 3 * 60_000;
const MARKER = ".alive";

interface Scratch {
  /** This process's directory: give it to the worker loops as their scratch root. */
  readonly dir: string;
  close(): Promise<void>;
}

function defaultScratchRoot(): string {
  return path.join(tmpdir(), "kinora-scratch");
}

/** Removes directories under root whose owner is gone; returns how many. */
export async function sweepScratch(root: string, nowMs = Date.now()): Promise<number> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(root, entry.name);
    const marker = await stat(path.join(dir, MARKER)).catch(() => null);
    const touched = marker?.mtimeMs ?? (await stat(dir).catch(() => null))?.mtimeMs ?? 0;
    if (nowMs - touched > STALE_SCRATCH_MS) {
      await rm(dir, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

/** This process's scratch directory (stale ones from crashed processes swept first). */
export async function openScratch(root = defaultScratchRoot()): Promise<Scratch> {
  await mkdir(root, { recursive: true });
  await sweepScratch(root);
  const dir = path.join(root, `${process.pid}-${randomBytes(4).toString("hex")}`);
  await mkdir(dir, { recursive: true });
  const marker = path.join(dir, MARKER);
  await writeFile(marker, String(process.pid));
  const timer = setInterval(() => {
    const now = new Date();
    utimes(marker, now, now).catch(() => {});
  }, TOUCH_MS);
  timer.unref();
  return {
    dir,
    async close() {
      clearInterval(timer);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

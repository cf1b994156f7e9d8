/**
 * Once per `npm test`: makes sure the migrated PGlite template exists (npm install builds it;
 * a changed migration needs a new one), so every in-memory test database is a ~0.6 s copy
 * instead of a ~2 s initdb plus migrations.
 *
 * Then gives the run a temporary directory of its own (TMPDIR, inherited by the test workers
 * and everything they start: servers, CLIs, ffmpeg) and removes it when the run ends. Tests
 * clean up after themselves, but a test that fails or times out, a server killed mid-write or
 * a fixture cached for the run would otherwise leave its files in /tmp on every run (about
 * 125 MB a run was found there); two runs side by side do not share it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureTemplate } from "../src/db/pglite-template.js";

export default async function setup(): Promise<() => void> {
  if (!process.env.DATABASE_URL) await ensureTemplate();
  const previous = process.env.TMPDIR;
  const runDir = mkdtempSync(path.join(tmpdir(), "kinora-run-"));
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(runDir, { recursive: true, force: true });
  };
}

/**
 * What `kinora serve` says while it starts, on stderr: a first line at once, and for each step
 * that takes more than a second a line when it has taken one ("still …") and one when it ends
 * with its time — so a slow first start on a loaded machine never looks like a hang.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";

/** Where the lines go (stderr; tests pass their own). */
export type Say = (line: string) => void;

const sayOnStderr: Say = (line) => process.stderr.write(`kinora: ${line}\n`);

/** After this long a step says it is still running, and later how long it took. */
const SLOW_MS = 1000;

/** Runs `work` as the step `label`, saying so when it is slow. */
export async function startupStep<T>(
  label: string,
  work: Promise<T>,
  say: Say = sayOnStderr,
): Promise<T> {
  const started = performance.now();
  const slow = setTimeout(() => say(`${label} …`), SLOW_MS);
  slow.unref();
  try {
    return await work;
  } finally {
    clearTimeout(slow);
    const ms = performance.now() - started;
    if (ms > SLOW_MS) say(`${label}: done in ${(ms / 1000).toFixed(1)} s`);
  }
}

/** The first line, at once: what is starting and on which data. */
export function announceStart(
  config: { databaseUrl?: string | undefined; dataDir: string },
  say: Say = sayOnStderr,
): string {
  const database = config.databaseUrl
    ? "PostgreSQL"
    : existsSync(path.join(config.dataDir, "pglite"))
      ? `the embedded database in ${config.dataDir}`
      : `a new embedded database in ${config.dataDir} (first start: created from its template)`;
  say(`starting on ${database} …`);
  return database;
}

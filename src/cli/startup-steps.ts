/**
 * What `kinora serve` says while it starts, on stderr: a first line at once, and for each step
 * that takes more than a second a line when it has taken one ("…") and one when it ends with
 * the time it took itself — so a slow first start on a loaded machine never looks like a hang,
 * and the times are each step's own, not a running total. Once listening, on stdout: where the
 * console and the docs are, and the first step for someone new (a balance and its key).
 */
import { existsSync } from "node:fs";
import path from "node:path";

/** Where the lines go (stderr; tests pass their own). */
export type Say = (line: string) => void;

const sayOnStderr: Say = (line) => process.stderr.write(`kinora: ${line}\n`);

/** After this long a step says it is still running, and later how long it took. */
const SLOW_MS = 1000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What a step may be told besides its label and work. */
export interface StepOptions {
  /**
   * Work this step waits for before its own begins (the service starts once the database it
   * opens beside it is open): its time counts from then, and `afterWhat` says so.
   */
  after?: { work: Promise<unknown>; what: string };
  /** Milliseconds since an origin (tests). */
  now?: () => number;
}

/**
 * Runs `work` as the step `label`, saying so when its own part is slow: "label …" after a
 * second, then "label took 2.3 s" (with "once <what>" when it waited for `after` first).
 */
export async function startupStep<T>(
  label: string,
  work: Promise<T>,
  say: Say = sayOnStderr,
  opts: StepOptions = {},
): Promise<T> {
  const now = opts.now ?? (() => performance.now());
  let started = now();
  let slow: ReturnType<typeof setTimeout> | undefined;
  let waited = false;
  const begin = (afterWaiting: boolean) => {
    started = now();
    waited = afterWaiting;
    slow = setTimeout(() => say(`${label} …`), SLOW_MS);
    slow.unref();
  };
  // With `after`, the clock starts when what this step waits for is done (if that failed, the
  // step fails at once and says nothing).
  if (opts.after)
    opts.after.work.then(
      () => begin(true),
      () => begin(false),
    );
  else begin(false);
  try {
    return await work;
  } finally {
    clearTimeout(slow);
    const ms = now() - started;
    const once = waited && opts.after ? ` (once ${opts.after.what})` : "";
    if (ms > SLOW_MS) say(`${label} took ${seconds(ms)}${once}`);
  }
}

/** The line that ends the start: how long after the process began it could take requests. */
export function announceReady(say: Say = sayOnStderr, sinceStartMs = performance.now()): void {
  say(`ready ${seconds(sinceStartMs)} after start`);
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

/**
 * What `kinora serve` prints once it listens (stdout): where it listens, then where a person
 * goes — the console, whose sign-in page creates a balance and shows its wallet key once (or
 * the same from a terminal), and the API docs — at the public URL, which is what a browser or
 * another machine uses.
 */
export function listeningBanner(server: { url: string; publicUrl: string }): string {
  const at = server.publicUrl.replace(/\/+$/, "");
  return [
    `kinora is listening on ${server.url}`,
    `  Console:  ${at}/console`,
    `            new here? press "Create a new balance" there: your wallet key (pmk_…) is shown once`,
    `            (or from a terminal: curl -s -X POST ${at}/wallet)`,
    `  API docs: ${at}/docs`,
    "",
  ].join("\n");
}

/**
 * Following a job to its end in few calls: held reads (`?wait=`, up to 25 s each) that return as
 * soon as the status changes — or, when the caller wants every update, on each progress report
 * too (`until=progress`) — repeated until the caller's condition holds.
 */
import type { Schemas } from "./generated.js";

/** A restore job as the server describes it. */
export type RestoreJob = Schemas["RestoreJob"];
/** A clip as the server describes it. */
export type ClipJob = Schemas["Clip"];

/** What to wait for and how long. */
export interface WaitOptions<J extends { status: string }> {
  /** Stop at one of these statuses, or when this returns true (default: a final status). */
  until?: readonly J["status"][] | ((job: J) => boolean);
  /** Called with every answer; when given, held reads end on progress reports too. */
  onUpdate?: (job: J) => void;
  /** Aborts the wait (and the held read in flight). */
  signal?: AbortSignal;
  /** Gives up after this long, rejecting with a `TimeoutError`. */
  timeoutMs?: number;
  /** How long each held read may last, in seconds (default 25, the server's most). */
  holdSeconds?: number;
}

/**
 * One read of the job, held up to `wait` seconds; it is given only the wait's signal (the
 * client's call options are the caller's business, so this module needs nothing of client.ts).
 */
type HeldRead<J> = (
  input: { id: string; wait: number; until: "status" | "progress" },
  options: { signal?: AbortSignal },
) => Promise<J>;

/**
 * Reads the job (at once, then held) until `until` holds — by default until one of `finals`,
 * the kind's final statuses (generated.ts lists each kind's).
 */
export async function waitFor<J extends { status: string }>(
  finals: readonly J["status"][],
  read: HeldRead<J>,
  id: string,
  options: WaitOptions<J>,
): Promise<J> {
  const until = options.until ?? finals;
  const done = typeof until === "function" ? until : (job: J) => until.includes(job.status);
  const signals = [
    options.signal,
    options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined,
  ];
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const signal = present.length > 1 ? AbortSignal.any(present) : present[0];
  const hold = Math.max(0, Math.min(25, Math.floor(options.holdSeconds ?? 25)));
  const mode = options.onUpdate ? "progress" : "status";
  // The first read answers at once: a job already at its end is not held for nothing.
  let job = await read({ id, wait: 0, until: mode }, { signal });
  for (;;) {
    options.onUpdate?.(job);
    if (done(job)) return job;
    job = await read({ id, wait: hold, until: mode }, { signal });
  }
}

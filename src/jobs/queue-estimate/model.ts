/**
 * How long a waiting or running job will take, from what the workers are doing now and how
 * fast this deployment has run each kind. Pure arithmetic over a snapshot the caller reads
 * (./read.ts): the recent runs' speeds per kind, every job now running on a worker (any kind),
 * the jobs of every kind ahead in the one line workers take them from, and how many workers
 * are live.
 *
 * The model:
 * - A rate is run seconds per unit of work (a second of video for restores, a second of clip
 *   for clips), per kind and work class: the ratio of sums over the kind's recent runs. A class
 *   without runs uses its default scaled by how fast this deployment ran the kind's other
 *   classes against their defaults (the "speed factor"), or the plain default.
 * - A running job's remaining time blends the rate's prediction less its elapsed time with an
 *   extrapolation of its own progress (elapsed × (1 − p) / p), trusting the progress more the
 *   further it got (from none at 5 % to all at 50 %, without a leap). A job past its prediction
 *   with little progress keeps a share of it to go: never "done any moment" while a worker is
 *   still busy for minutes.
 * - A waiting job starts when the work ahead of it has been poured onto the live workers, each
 *   busy until its running job ends (water-filling: workers take any kind, work is divisible),
 *   and then runs for its own predicted time.
 * Every figure depends only on the snapshot, so the same situation always gives the same
 * estimate, whichever surface asks.
 */
import { at } from "../../domain/checked-index.js";

/** Run seconds per unit of work, by work class (quality, clip size). */
export type ClassRates = Readonly<Record<string, number>>;

/** Rates by kind, then class. */
export type KindRates = Readonly<Record<string, ClassRates>>;

/** A finished job of a kind: its work class, work amount and how long its last attempt ran. */
export interface RunSample {
  workClass: string;
  amount: number;
  runSec: number;
}

/** A job's work: its kind, class and amount. */
export interface Work {
  kind: string;
  workClass: string;
  amount: number;
}

/** A job now held by a worker. */
export interface RunningJob extends Work {
  /** Seconds since its current attempt was claimed. */
  elapsedSec: number;
  /** 0..1 as reported by the worker's heartbeats; null when it has not reported any. */
  progress: number | null;
}

/** Work a worker takes before the job asked about: jobs of one kind and class, summed. */
export interface WorkAhead extends Work {
  count: number;
}

/** The additive `queue` field of a waiting or running job. */
export interface QueueEstimate {
  /** "queued": waiting for a worker; "running": a worker has it now. */
  state: "queued" | "running";
  /** 1 = the next job a worker takes; 0 = a worker is running it now. */
  position: number;
  /** Jobs (of any kind) a worker takes before this one. */
  ahead: number;
  /** Seconds until the job is expected to be done (whole seconds, at least 1). */
  eta_seconds: number;
  /** now + eta_seconds, ISO 8601. */
  estimated_done_at: string;
}

/** Throughput is measured over at most this many recent finished jobs of a kind… */
export const RUN_SAMPLE_LIMIT = 50;
/** …that finished within this window. */
export const RUN_SAMPLE_WINDOW_MS = 24 * 3600_000;
/**
 * A worker counts as live while it holds a lease (it heartbeats) or finished a job within
 * this window (it is between jobs). One that stopped is not counted once its lease lapses.
 */
export const LIVE_WORKER_WINDOW_MS = 2 * 60_000;

/** Progress below this is too early to extrapolate from (start-up dominates). */
const MIN_PROGRESS_TO_EXTRAPOLATE = 0.05;
/** From this progress on, the extrapolation alone decides the remaining time. */
const FULL_TRUST_PROGRESS = 0.5;
/** A job running past its prediction is assumed to need at least this share of it still. */
const OVERRUN_REMAINING_SHARE = 0.25;

const valid = (s: RunSample) =>
  Number.isFinite(s.amount) && s.amount > 0 && Number.isFinite(s.runSec) && s.runSec >= 0;

/**
 * One kind's rates for every class in `defaults` (and any class seen in samples): measured
 * where there are samples, otherwise the default scaled by the kind's measured speed factor.
 */
export function runRates(samples: readonly RunSample[], defaults: ClassRates): ClassRates {
  const sums = new Map<string, { run: number; amount: number }>();
  let measured = 0;
  let predicted = 0;
  for (const s of samples.filter(valid)) {
    const sum = sums.get(s.workClass) ?? { run: 0, amount: 0 };
    sum.run += s.runSec;
    sum.amount += s.amount;
    sums.set(s.workClass, sum);
    const fallback = defaults[s.workClass];
    if (fallback !== undefined) {
      measured += s.runSec;
      predicted += fallback * s.amount;
    }
  }
  const speed = predicted > 0 ? measured / predicted : 1;
  const rates: Record<string, number> = {};
  for (const [workClass, rate] of Object.entries(defaults)) rates[workClass] = rate * speed;
  for (const [workClass, sum] of sums) rates[workClass] = sum.run / sum.amount;
  return rates;
}

/**
 * Predicted run seconds of one job; an unknown class runs at its kind's slowest known rate,
 * an unknown kind at the slowest rate of all.
 */
export function predictedRunSec(rates: KindRates, work: Work): number {
  const own = rates[work.kind];
  const slowest = (r: ClassRates) => Math.max(0, ...Object.values(r));
  const rate =
    own?.[work.workClass] ??
    (own ? slowest(own) : Math.max(0, ...Object.values(rates).map(slowest)));
  return Math.max(0, rate * work.amount);
}

/** Seconds a running job still needs, from its predicted total, elapsed time and progress. */
export function remainingRunSec(predictedSec: number, elapsedSec: number, progress: number | null) {
  const p = Math.min(1, Math.max(0, progress ?? 0));
  const elapsed = Math.max(0, elapsedSec);
  // The prediction less the time already spent; a job past its prediction still needs a share
  // of it for what its progress says is left.
  const byRate = Math.max(predictedSec - elapsed, OVERRUN_REMAINING_SHARE * predictedSec * (1 - p));
  if (p < MIN_PROGRESS_TO_EXTRAPOLATE || elapsed === 0) return byRate;
  const fromProgress = (elapsed * (1 - p)) / p;
  // Trust in the job's own pace grows with its progress alone: from nothing at the first usable
  // progress (so the estimate does not leap when progress crosses it) to all of it from half
  // way. Not with time overrun: progress comes in phases (a restore's analysis holds it near
  // 7 % for a while), and a pace taken from a plateau would multiply the estimate tenfold
  // until the next phase reports, then collapse — the jumping this model is there to avoid.
  const ramp =
    (p - MIN_PROGRESS_TO_EXTRAPOLATE) / (FULL_TRUST_PROGRESS - MIN_PROGRESS_TO_EXTRAPOLATE);
  const trust = Math.min(1, Math.max(0, ramp));
  return trust * fromProgress + (1 - trust) * byRate;
}

/**
 * When the next job can start: `aheadSec` of work poured onto `workers` workers, each free
 * after its own busy time (missing entries are idle workers). Water-filling: the level the
 * work reaches is the earliest a worker is free for the job behind it.
 */
export function startDelaySec(busySec: readonly number[], workers: number, aheadSec: number) {
  const n = Math.max(1, Math.floor(workers), busySec.length);
  const free = [...busySec.map((s) => Math.max(0, s))];
  while (free.length < n) free.push(0);
  free.sort((a, b) => a - b);
  let poured = Math.max(0, aheadSec);
  for (let k = 1; k <= n; k++) {
    poured += at(free, k - 1);
    const level = poured / k;
    const next = free[k];
    if (next === undefined || level <= next) return level;
  }
  return poured / n;
}

function estimate(
  state: QueueEstimate["state"],
  position: number,
  etaSec: number,
  now: Date,
): QueueEstimate {
  const eta = Math.max(1, Math.ceil(etaSec));
  return {
    state,
    position,
    ahead: Math.max(0, position - 1),
    eta_seconds: eta,
    estimated_done_at: new Date(now.getTime() + eta * 1000).toISOString(),
  };
}

/** What every estimate shares: the rates, the jobs on the workers and how many are live. */
export interface QueueSnapshot {
  now: Date;
  rates: KindRates;
  /** Every job a live worker runs now, of any kind. */
  running: readonly RunningJob[];
  /** Live workers (at least 1 is assumed, and at least one per running job). */
  workers: number;
}

/** Seconds a running job still needs. */
function remainingOf(s: QueueSnapshot, job: RunningJob): number {
  return remainingRunSec(predictedRunSec(s.rates, job), job.elapsedSec, job.progress);
}

/** The estimate of a job a worker is running now (position 0). */
export function runningEstimate(s: QueueSnapshot, job: RunningJob): QueueEstimate {
  return estimate("running", 0, remainingOf(s, job), s.now);
}

/** The estimate of a waiting job with `ahead` to be taken before it. */
export function waitingEstimate(
  s: QueueSnapshot,
  job: Work,
  ahead: readonly WorkAhead[],
): QueueEstimate {
  let count = 0;
  let aheadSec = 0;
  for (const work of ahead) {
    count += work.count;
    aheadSec += predictedRunSec(s.rates, work);
  }
  const busy = s.running.map((r) => remainingOf(s, r));
  const start = startDelaySec(busy, s.workers, aheadSec);
  return estimate("queued", count + 1, start + predictedRunSec(s.rates, job), s.now);
}

/**
 * How long a waiting or running job will take, from measured throughput. Pure arithmetic: the
 * caller supplies recent finished jobs (run seconds and work amount per work class), the jobs
 * now running, the work queued ahead and how many workers were seen recently.
 *
 * The model:
 * - A class's rate (run seconds per unit of work: a second of video for restores, a second of
 *   clip for clips) is the ratio of sums over its recent samples. A class without samples uses
 *   its default rate scaled by how fast this deployment ran the other classes relative to
 *   their defaults (the "speed factor"), or the plain default when nothing ran yet.
 * - A running job's remaining time blends the rate prediction with an extrapolation of its
 *   reported progress, trusting the progress more the further it got.
 * - A waiting job starts when the work ahead of it has been poured onto the workers, each
 *   busy until its running job ends (water-filling: workers are interchangeable and work is
 *   divisible). It then runs for its own predicted time.
 */

/** Run seconds per unit of work, by work class (quality, clip size). */
export type ClassRates = Readonly<Record<string, number>>;

/** A finished job of the kind: its work class, work amount and how long its last attempt ran. */
export interface RunSample {
  workClass: string;
  amount: number;
  runSec: number;
}

/** A job now held by a worker. */
export interface RunningJob {
  workClass: string;
  amount: number;
  /** Seconds since its current attempt was claimed. */
  elapsedSec: number;
  /** 0..1 as reported by the worker's heartbeats; null when it has not reported any. */
  progress: number | null;
}

/** Work queued ahead of a job, by class. */
export type WorkAhead = Readonly<Record<string, { count: number; amount: number }>>;

/** The additive `queue` field of a waiting or running job. */
export interface QueueEstimate {
  /** 1 = the next job a worker claims; 0 = a worker is running it now. */
  position: number;
  /** Jobs of the same kind that will be claimed before this one. */
  ahead: number;
  /** Seconds until the job is expected to be done (whole seconds, at least 1). */
  eta_seconds: number;
  /** now + eta_seconds, ISO 8601. */
  estimated_done_at: string;
}

/** Throughput is measured over at most this many recent finished jobs of the kind… */
export const RUN_SAMPLE_LIMIT = 50;
/** …that finished within this window. */
export const RUN_SAMPLE_WINDOW_MS = 24 * 3600_000;
/** Workers count as present when they claimed a job of the kind within this window. */
export const WORKER_WINDOW_MS = 30 * 60_000;

/** Progress below this is too early to extrapolate from (startup dominates). */
const MIN_PROGRESS_TO_EXTRAPOLATE = 0.05;
/** From this progress on, the extrapolation alone decides the remaining time. */
const FULL_TRUST_PROGRESS = 0.5;
/** A job running past its prediction is assumed to need this share of it still. */
const OVERRUN_REMAINING_SHARE = 0.1;

const valid = (s: RunSample) =>
  Number.isFinite(s.amount) && s.amount > 0 && Number.isFinite(s.runSec) && s.runSec >= 0;

/**
 * Rates for every class in `defaults` (and any class seen in samples): measured where there
 * are samples, otherwise the default scaled by the deployment's measured speed factor.
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

/** Predicted run seconds of one job; an unknown class runs at the slowest known rate. */
export function predictedRunSec(rates: ClassRates, workClass: string, amount: number): number {
  const rate = rates[workClass] ?? Math.max(0, ...Object.values(rates));
  return Math.max(0, rate * amount);
}

/** Seconds a running job still needs, from its predicted total, elapsed time and progress. */
export function remainingRunSec(predictedSec: number, elapsedSec: number, progress: number | null) {
  const p = Math.min(1, Math.max(0, progress ?? 0));
  const elapsed = Math.max(0, elapsedSec);
  // The prediction less the time already spent; a job past its prediction is "almost done".
  const byRate = Math.max(predictedSec - elapsed, OVERRUN_REMAINING_SHARE * predictedSec * (1 - p));
  if (p < MIN_PROGRESS_TO_EXTRAPOLATE || elapsed === 0) return byRate;
  const fromProgress = (elapsed * (1 - p)) / p;
  const trust = Math.min(1, p / FULL_TRUST_PROGRESS);
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
    poured += free[k - 1] as number;
    const level = poured / k;
    const next = free[k];
    if (next === undefined || level <= next) return level;
  }
  return poured / n;
}

function estimate(position: number, etaSec: number, now: Date): QueueEstimate {
  const eta = Math.max(1, Math.ceil(etaSec));
  return {
    position,
    ahead: Math.max(0, position - 1),
    eta_seconds: eta,
    estimated_done_at: new Date(now.getTime() + eta * 1000).toISOString(),
  };
}

/** What the estimates of one kind share: its rates, its running jobs and its workers. */
export interface QueueSnapshot {
  now: Date;
  rates: ClassRates;
  running: readonly RunningJob[];
  /** Distinct workers seen recently (at least 1 is assumed). */
  workers: number;
}

function busyTimes(s: QueueSnapshot): number[] {
  return s.running.map((r) =>
    remainingRunSec(predictedRunSec(s.rates, r.workClass, r.amount), r.elapsedSec, r.progress),
  );
}

/** The estimate of a job a worker is running now (position 0). */
export function runningEstimate(s: QueueSnapshot, job: RunningJob): QueueEstimate {
  const predicted = predictedRunSec(s.rates, job.workClass, job.amount);
  return estimate(0, remainingRunSec(predicted, job.elapsedSec, job.progress), s.now);
}

/** The estimate of a waiting job with `ahead` queued before it. */
export function waitingEstimate(
  s: QueueSnapshot,
  job: { workClass: string; amount: number },
  ahead: WorkAhead,
): QueueEstimate {
  let count = 0;
  let aheadSec = 0;
  for (const [workClass, work] of Object.entries(ahead)) {
    count += work.count;
    aheadSec += predictedRunSec(s.rates, workClass, work.amount);
  }
  const start = startDelaySec(busyTimes(s), s.workers, aheadSec);
  return estimate(count + 1, start + predictedRunSec(s.rates, job.workClass, job.amount), s.now);
}

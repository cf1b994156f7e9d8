/**
 * What workers and the clock do in the simulation. A worker claims from a kind's JobQueue and
 * runs the real executor around a fake engine (input fetched and result stored through the
 * app's signed URLs and output ticket), then reports the way the worker loop does; or it
 * crashes (claims and vanishes, maybe reporting late), or claims success with nothing stored.
 * Time passes only when the simulation advances the injected clock; then leases lapse and the
 * retention sweeper runs.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { jobEngineDeps } from "../../src/feature.js";
import { sweepJobs } from "../../src/jobs/retention.js";
import {
  type Executor,
  type JobQueue,
  WorkError,
  type WorkFailure,
  type WorkItem,
} from "../../src/jobs/work.js";
import type { TestApp } from "../app.js";
import type { EngineOutcome, EngineScript } from "./fakes.js";
import { type Kind, kindNamed, type Model, runningOf, type SimJob, setStatus } from "./model.js";

export interface Workers {
  /** Every queue the app serves, by its kind's name. */
  queues: ReadonlyMap<Kind, JobQueue>;
  /** The executor of each kind the simulation runs work of (around its scripted fake engine). */
  executors: ReadonlyMap<Kind, Executor>;
  script: EngineScript;
}

/** The kind's queue or executor; a kind the app does not serve is the simulation's mistake. */
function of<T>(map: ReadonlyMap<Kind, T>, kind: Kind, what: string): T {
  const found = map.get(kind);
  if (!found) throw new Error(`the simulation has no ${what} for the kind "${kind}"`);
  return found;
}

/** How an attempt ends: an engine outcome, a crash of the worker, or success with no output. */
export type AttemptPlan = EngineOutcome | "vanish" | "no_output" | "stored_then_retry" | "release";

let workerSeq = 0;

/** Runs the executor as the worker loop does; the failure it would report, or null on success. */
async function execute(w: Workers, item: WorkItem, worker: string): Promise<WorkFailure | null> {
  const workDir = await mkdtemp(path.join(tmpdir(), "kinora-sim-"));
  try {
    await of(w.executors, item.kind, "executor").execute(item, {
      signal: new AbortController().signal,
      progress: () => {},
      workDir,
      // As the worker loop does: the running attempt's facts go to the queue at once.
      note: async (facts) => {
        await of(w.queues, item.kind, "queue").note(item.jobId, worker, facts);
      },
    });
    return null;
  } catch (err) {
    if (err instanceof WorkError) return err.failure;
    return { kind: "retry", message: "The processing engine failed unexpectedly." };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export async function workOnce(
  t: TestApp,
  model: Model,
  w: Workers,
  kind: Kind,
  plan: AttemptPlan,
): Promise<void> {
  const worker = `sim-w${++workerSeq}`;
  const q = of(w.queues, kind, "queue");
  const item = await q.claim(worker, model.cfg.leaseMs);
  const claimable = model.claimable(kind);
  if (!item) return void expect(claimable, `a ${kind} claim found nothing`).toEqual([]);
  const job = claimable.find((j) => j.id === item.jobId);
  expect(job, `claimed ${item.jobId}, which the model says is not claimable`).toBeDefined();
  if (!job) return;
  const now = t.clock.now().getTime();
  setStatus(job, runningOf(kind));
  job.attempts++;
  job.lease = { owner: worker, until: now + model.cfg.leaseMs };
  if (plan === "vanish") {
    model.zombies.push({ job, worker });
    return;
  }
  if (plan === "release") {
    expect(await q.release(job.id, worker)).toBe("ok");
    job.attempts--;
    model.retryOrFail(job, now);
    return;
  }
  if (plan === "no_output") return reportComplete(t, model, q, job, worker);
  w.script.next = plan === "stored_then_retry" ? "ok" : plan;
  const failure = await execute(w, item, worker);
  // Success means the executor stored the result through the output ticket.
  if (failure === null) job.outputStored = true;
  if (plan === "stored_then_retry") {
    expect(failure).toBeNull();
    expect(await q.fail(job.id, worker, { kind: "retry", message: "lost the report" })).toBe("ok");
    return model.retryOrFail(job, now);
  }
  if (failure === null) return reportComplete(t, model, q, job, worker);
  expect(await q.fail(job.id, worker, failure)).toBe("ok");
  expectFailure(model, job, plan, failure, now);
}

function expectFailure(
  model: Model,
  job: SimJob,
  plan: AttemptPlan,
  failure: WorkFailure,
  now: number,
) {
  const expectedKind: Record<string, WorkFailure["kind"]> = {
    final: "final",
    crash: "retry",
    too_long: "too_long",
    refused: "refused",
  };
  expect(failure.kind, `${job.id} ${plan}: ${failure.message}`).toBe(expectedKind[plan]);
  if (failure.kind === "retry") return model.retryOrFail(job, now);
  const status = { final: "failed", too_long: "refunded", refused: "refused" }[failure.kind];
  model.end(job, status, true, now);
}

/** The worker reports success; only a stored result makes the job done. */
async function reportComplete(t: TestApp, model: Model, q: JobQueue, job: SimJob, worker: string) {
  expect(await q.complete(job.id, worker, { outputBytes: 12, meta: {} })).toBe("ok");
  const now = t.clock.now().getTime();
  if (!job.outputStored) return model.retryOrFail(job, now);
  model.end(job, "done", false, now);
  const read = await readJob(t, job);
  const url = read.body.job.download_url as string | null;
  expect(url, `${job.id} is done without a download link`).toBeTruthy();
  const res = await t.fetchUrl(url as string);
  await res.arrayBuffer();
  expect(res.status, `${job.id} download`).toBe(200);
}

/** GET of the job by its kind's read operation (its REST path), with a key where it takes one. */
export async function readJob(t: TestApp, job: SimJob) {
  const get = kindNamed(job.kind).roles?.get;
  if (!get?.rest) throw new Error(`the kind "${job.kind}" has no REST read`);
  const key = get.auth === "none" ? undefined : job.wallet?.secret;
  return t.call("GET", get.rest.path.replace("{id}", job.id), key ? { key } : {});
}

/** A crashed worker comes back: its reports count only while it still holds the lease. */
export async function zombieReport(t: TestApp, model: Model, w: Workers, index: number) {
  const [z] = model.zombies.splice(index, 1);
  if (!z) return;
  const { job, worker } = z;
  const q = of(w.queues, job.kind, "queue");
  const holds = job.status === runningOf(job.kind) && job.lease?.owner === worker;
  const now = t.clock.now().getTime();
  const outcome = await q.heartbeat(job.id, worker, model.cfg.leaseMs, 0.5);
  expect(outcome, `late heartbeat on ${job.id}`).toBe(holds ? "ok" : "lease_lost");
  if (!holds || !job.lease) return;
  job.lease.until = now + model.cfg.leaseMs;
  expect(await q.fail(job.id, worker, { kind: "final", message: "The video is corrupt." })).toBe(
    "ok",
  );
  model.end(job, "failed", true, now);
}

/** Time passes; then every served kind's lapsed leases are recovered and its sweeper runs. */
export async function tick(t: TestApp, model: Model, w: Workers, advanceMs: number) {
  t.clock.advance(advanceMs);
  const now = t.clock.now().getTime();
  for (const [kind, queue] of w.queues) {
    const expected = model.recoverLeases(kind, now);
    expect(await queue.recoverLapsedLeases(), `${kind} leases recovered`).toBe(expected);
    await sweepJobs(kindNamed(kind).definition, jobEngineDeps(t.platform));
    model.sweep(kind, now);
  }
  return now;
}

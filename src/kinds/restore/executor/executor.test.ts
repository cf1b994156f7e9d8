/**
 * The restore executor's order of work, through its public seam (`execute`) with an engine that
 * records what it was asked: the engine's own reading of the file (`prepare`) runs while the
 * length is measured, its result reaches `restore`, and it is stopped whenever the restore will
 * not happen.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RestoreEngine, RestoreJob } from "../../../engines/contracts.js";
import { MediaError } from "../../../engines/restore/index.js";
import { MAX_FRAME_RATE, MIN_VIDEO_SEC } from "../../../engines/restore/validate.js";
import { type ExecuteContext, WorkError, type WorkItem } from "../../../jobs/work.js";
import type { FetchLike } from "../../../workers/transfer.js";
import { RESTORE_MAX_FRAME_RATE, RESTORE_MIN_VIDEO_SEC } from "../rules/limits.js";
import type { RestoreWorkParams } from "../services/definition.js";
import { createRestoreExecutor } from "./executor.js";

let workDir: string;
beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), "kinora-restore-exec-"));
});
afterEach(() => rm(workDir, { recursive: true, force: true }));

/** Serves a 1 kB input and takes the output's ticket and upload, as the server would. */
const storage: FetchLike = async (url, init) => {
  if (url.endsWith("/input")) return new Response(new Uint8Array(1024).fill(7));
  if (init?.method === "POST") {
    return Response.json({ url: "http://storage.test/put", headers: {} });
  }
  if (init?.method === "PUT") {
    await new Response(init.body).arrayBuffer();
    return new Response(null, { status: 200 });
  }
  return new Response("unexpected", { status: 500 });
};

function item(declaredDurationSec: number): WorkItem<RestoreWorkParams> {
  return {
    kind: "restore",
    jobId: "rj_test",
    attempt: 1,
    leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
    leaseMs: 60_000,
    inputUrl: "http://storage.test/input",
    outputUrl: "http://server.test/output",
    outputHeaders: {},
    params: {
      quality: "faithful",
      declaredDurationSec,
      sizeBytes: 1024,
      filename: "tape.mp4",
      contentType: "video/mp4",
    },
  };
}

function context(signal = new AbortController().signal): ExecuteContext {
  return { signal, progress: () => {}, workDir, note: async () => {} };
}

interface Seen {
  events: string[];
  prepareSignal?: AbortSignal;
  restoredWith?: RestoreJob;
}

/**
 * An engine whose length scan resolves only after its probe has begun (so the two can only
 * both finish when they overlap), with what each step saw recorded.
 */
function recordingEngine(
  opts: { lengthSec?: number; measureFails?: boolean; prepareFails?: boolean } = {},
): { engine: RestoreEngine<{ plan: string }>; seen: Seen } {
  const seen: Seen = { events: [] };
  let probeStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    probeStarted = resolve;
  });
  const engine: RestoreEngine<{ plan: string }> = {
    name: "recording",
    async measureDurationSec() {
      seen.events.push("measure:start");
      await started;
      seen.events.push("measure:end");
      if (opts.measureFails) throw new MediaError("corrupt", "unreadable (test)");
      return opts.lengthSec ?? 10;
    },
    async prepare({ signal }) {
      seen.events.push("prepare:start");
      seen.prepareSignal = signal;
      probeStarted();
      await new Promise((r) => setTimeout(r, 20));
      if (opts.prepareFails) throw new MediaError("no_video", "no picture (test)");
      seen.events.push("prepare:end");
      return { plan: "decided once" };
    },
    async restore(job) {
      seen.events.push(`restore (prepare's signal aborted: ${seen.prepareSignal?.aborted})`);
      seen.restoredWith = job;
      await writeFile(job.outputPath, new Uint8Array(64));
      return { durationSec: 10, width: 640, height: 480, plan: {}, elapsedMs: 1 };
    },
  };
  return { engine, seen };
}

describe("restore executor", () => {
  it("probes while it measures the length, and restores with what the probe decided", async () => {
    const { engine, seen } = recordingEngine();
    const executor = createRestoreExecutor({ engine, fetch: storage });
    const done = await executor.execute(item(10), context());
    expect(done.meta?.measuredDurationSec).toBe(10);
    expect(seen.events.indexOf("prepare:start")).toBeLessThan(seen.events.indexOf("measure:end"));
    expect(seen.restoredWith?.prepared).toEqual({ plan: "decided once" });
    expect(seen.restoredWith?.durationSec).toBe(10);
    // What the engine prepared may still be at work while it restores: stopped only after.
    expect(seen.events).toContain("restore (prepare's signal aborted: false)");
    expect(seen.prepareSignal?.aborted).toBe(true);
  });

  it("hands the engine what the customer said of the fade, and nothing when they said nothing", async () => {
    const told = recordingEngine();
    const withFade = { ...item(10), params: { ...item(10).params, fade: "faded" as const } };
    await createRestoreExecutor({ engine: told.engine, fetch: storage }).execute(
      withFade,
      context(),
    );
    expect(told.seen.restoredWith?.fade).toBe("faded");
    const plain = recordingEngine();
    await createRestoreExecutor({ engine: plain.engine, fetch: storage }).execute(
      item(10),
      context(),
    );
    expect(plain.seen.restoredWith).not.toHaveProperty("fade");
  });

  it("stops the probe and never restores a file longer than was paid for", async () => {
    const { engine, seen } = recordingEngine({ lengthSec: 600 });
    const executor = createRestoreExecutor({ engine, fetch: storage });
    const failure = await executor.execute(item(10), context()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WorkError);
    expect((failure as WorkError).failure.kind).toBe("too_long");
    expect(seen.prepareSignal?.aborted).toBe(true);
    expect(seen.events.join()).not.toContain("restore");
  });

  it("stops the probe when the file cannot be read, and the scan's error is the answer", async () => {
    const { engine, seen } = recordingEngine({ measureFails: true });
    const executor = createRestoreExecutor({ engine, fetch: storage });
    const failure = await executor.execute(item(10), context()).catch((e: unknown) => e);
    expect((failure as WorkError).failure.kind).toBe("final");
    expect((failure as WorkError).message).toBe("unreadable (test)");
    expect(seen.prepareSignal?.aborted).toBe(true);
    expect(seen.events.join()).not.toContain("restore");
  });

  it("fails the job for good when the probe finds the file unusable", async () => {
    const { engine, seen } = recordingEngine({ prepareFails: true });
    const executor = createRestoreExecutor({ engine, fetch: storage });
    const failure = await executor.execute(item(10), context()).catch((e: unknown) => e);
    expect((failure as WorkError).failure.kind).toBe("final");
    expect((failure as WorkError).message).toBe("no picture (test)");
    expect(seen.events.join()).not.toContain("restore");
  });

  it("cancels the probe with the job", async () => {
    // Both steps run until they are stopped, so only the job's own cancel can end them.
    let probeSignal: AbortSignal | undefined;
    const untilAborted = (signal: AbortSignal) =>
      new Promise<never>((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
      );
    const engine: RestoreEngine = {
      name: "held",
      measureDurationSec: (_path, signal) => untilAborted(signal as AbortSignal),
      prepare: ({ signal }) => {
        probeSignal = signal;
        return untilAborted(signal as AbortSignal);
      },
      restore: () => Promise.reject(new Error("must not restore")),
    };
    const job = new AbortController();
    const executor = createRestoreExecutor({ engine, fetch: storage });
    const running = executor.execute(item(10), context(job.signal)).catch((e: unknown) => e);
    await vi.waitFor(() => expect(probeSignal).toBeDefined(), { timeout: 10_000 });
    const reason = new Error("cancelled by the owner (test)");
    job.abort(reason);
    expect(await running).toBe(reason);
    expect(probeSignal?.reason).toBe(reason);
  });
});

describe("the engine and the restore kind", () => {
  it("agree on the shortest video: what create refuses is what the engine would", () => {
    expect(MIN_VIDEO_SEC).toBe(RESTORE_MIN_VIDEO_SEC);
  });

  it("agree on the fastest frames: what the job's documents say is what the engine refuses", () => {
    expect(MAX_FRAME_RATE).toBe(RESTORE_MAX_FRAME_RATE);
  });
});

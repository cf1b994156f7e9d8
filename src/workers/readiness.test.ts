/**
 * A worker asks its executors what this machine lacks before it claims anything: the kinds it
 * can run are claimed, the others are reported once with what they need, and a dedicated
 * worker that can run none says so instead of idling.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Executor } from "../jobs/work.js";
import type { Logger } from "../logger.js";
import { executorsOrExplain, NothingToRunError, readyExecutors } from "./readiness.js";

function executor(kind: string, needs?: string[]): Executor {
  return {
    kind,
    params: z.object({}),
    execute: () => Promise.reject(new Error("not run here")),
    ...(needs ? { unmetNeeds: () => needs } : {}),
  };
}

function recordingLogger() {
  const errors: string[] = [];
  const log: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (msg) => errors.push(msg),
    child: () => log,
  };
  return { log, errors };
}

const NO_FFMPEG = "ffmpeg and ffprobe not found: install ffmpeg.";

describe("readyExecutors", () => {
  it("keeps the kinds this machine can run and logs each other kind with what it lacks", () => {
    const { log, errors } = recordingLogger();
    const ready = readyExecutors(
      [executor("restore", [NO_FFMPEG]), executor("clip", []), executor("plain")],
      log,
    );
    expect(ready.map((e) => e.kind)).toEqual(["clip", "plain"]);
    expect(errors).toEqual([
      `restore jobs cannot run here: ${NO_FFMPEG} (this worker leaves them queued)`,
    ]);
  });
});

describe("executorsOrExplain", () => {
  it("runs what it can when at least one kind can run", () => {
    const { log, errors } = recordingLogger();
    const ready = executorsOrExplain([executor("restore", [NO_FFMPEG]), executor("clip")], log);
    expect(ready.map((e) => e.kind)).toEqual(["clip"]);
    expect(errors).toHaveLength(1);
  });

  it("refuses to start, naming every kind and its needs, when none can run", () => {
    const { log } = recordingLogger();
    const run = () =>
      executorsOrExplain(
        [
          executor("restore", [NO_FFMPEG]),
          executor("clip", [NO_FFMPEG, "The image check needs nsfwjs."]),
        ],
        log,
      );
    expect(run).toThrow(NothingToRunError);
    expect(run).toThrow(
      [
        "this machine can run no kind of job:",
        `  restore jobs cannot run here: ${NO_FFMPEG}`,
        `  clip jobs cannot run here: ${NO_FFMPEG} The image check needs nsfwjs.`,
      ].join("\n"),
    );
  });
});

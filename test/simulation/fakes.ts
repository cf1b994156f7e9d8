/**
 * Fast stand-ins at the engine seam for the whole-system simulation: a restore engine and a
 * clip engine that write a few bytes or fail the way the simulation tells them to, and a
 * classifier that refuses on command. The real executors run around them (download the input,
 * check the length, store the result through the output ticket), so only ffmpeg is faked.
 */
import { writeFile } from "node:fs/promises";
import { ImageError } from "../../src/engines/clip/image.js";
import type { ClipEngine, RestoreEngine } from "../../src/engines/contracts.js";
import type { ImageClassifier } from "../../src/engines/moderation/image-classifier.js";
import { MediaError } from "../../src/engines/restore/errors.js";

/** What the next attempt does: succeed, fail for good, crash (retryable), or break a rule. */
export type EngineOutcome = "ok" | "final" | "crash" | "too_long" | "refused";

/** The simulation sets `next` before it runs an attempt; the fakes read it. */
export interface EngineScript {
  next: EngineOutcome;
}

const OUTPUT = new Uint8Array([0, 0, 0, 24, 102, 116, 121, 112, 109, 112, 52, 50]);

export function fakeRestoreEngine(script: EngineScript): RestoreEngine {
  return {
    name: "sim-restore",
    // Far longer than any declared length when told to lie, else one second (always fits).
    measureDurationSec: async () => (script.next === "too_long" ? 100_000 : 1),
    async restore({ outputPath }) {
      if (script.next === "final") throw new MediaError("corrupt", "The video is corrupt.");
      if (script.next === "crash") throw new Error("simulated engine crash");
      await writeFile(outputPath, OUTPUT);
      return { durationSec: 1, width: 320, height: 240, plan: { engine: "sim" }, elapsedMs: 1 };
    },
  };
}

export function fakeClipEngine(script: EngineScript): ClipEngine {
  return {
    name: "sim-clip",
    async makeClip({ outputPath }) {
      if (script.next === "final") throw new ImageError("unsupported", "The image is unusable.");
      if (script.next === "crash") throw new Error("simulated engine crash");
      await writeFile(outputPath, OUTPUT);
      return { durationSec: 5, width: 854, height: 480, motion: "drift", sound: "room", fps: 25 };
    },
  };
}

export function scriptedClassifier(script: EngineScript): ImageClassifier {
  return {
    async classify() {
      return script.next === "refused"
        ? { allowed: false, code: "sexual", scores: {} }
        : { allowed: true, scores: {} };
    },
  };
}

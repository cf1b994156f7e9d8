/**
 * The restore Executor: download the input, measure its real length (refund when it is far
 * above the declared one), restore it with the configured engine, store the result.
 */
import path from "node:path";
import { tooLong } from "../../domain/restore/limits.js";
import { RESTORE_MESSAGES } from "../../domain/restore/transitions.js";
import type { RestoreEngine } from "../../engines/contracts.js";
import { MediaError } from "../../engines/restore/index.js";
import { type Executor, WorkError } from "../../jobs/work.js";
import { RestoreWorkParams, restoreJobs } from "../../services/restore/job-definition.js";
import { downloadInput, type FetchLike, uploadOutput } from "./transfer.js";

const asFinal = (err: unknown) =>
  err instanceof MediaError
    ? new WorkError({ kind: "final", message: err.message, code: err.code })
    : err;

export function createRestoreExecutor(opts: {
  engine: RestoreEngine;
  fetch?: FetchLike;
}): Executor<RestoreWorkParams> {
  const fetchImpl: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  return {
    kind: restoreJobs.kind,
    params: RestoreWorkParams,
    async execute(item, ctx) {
      const params = item.params;
      const inputPath = path.join(ctx.workDir, "input");
      const outputPath = path.join(ctx.workDir, "output.mp4");
      await downloadInput(fetchImpl, item.inputUrl, inputPath, params.sizeBytes, ctx.signal);
      ctx.progress(0.02);
      const realSec = await opts.engine
        .measureDurationSec(inputPath, ctx.signal)
        .catch((err) => Promise.reject(asFinal(err)));
      if (tooLong(realSec, params.declaredDurationSec)) {
        throw new WorkError({
          kind: "too_long",
          message: RESTORE_MESSAGES.tooLong(realSec, params.declaredDurationSec),
        });
      }
      const result = await opts.engine
        .restore({
          inputPath,
          inputUrl: item.inputUrl,
          outputPath,
          durationSec: realSec,
          quality: params.quality,
          signal: ctx.signal,
          onProgress: (f) => ctx.progress(0.02 + 0.93 * f),
        })
        .catch((err) => Promise.reject(asFinal(err)));
      const outputBytes = await uploadOutput(fetchImpl, item, outputPath, "video/mp4", ctx.signal);
      ctx.progress(1);
      return {
        outputBytes,
        meta: {
          measuredDurationSec: realSec,
          width: result.width,
          height: result.height,
          engine: opts.engine.name,
        },
      };
    },
  };
}

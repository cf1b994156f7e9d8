/**
 * Sending a restore's file in parts from the command line: the SDK's uploader (parts in
 * parallel, each retried with back-off, resuming from what the server says arrived) under one
 * progress bar across all parts — bytes, rate, ETA — that starts where an earlier run stopped.
 * Its own failures as the command line words them: the storage's refusal as an ApiFailure, no
 * answer as a NetworkFailure, Ctrl-C as Interrupted.
 */
import path from "node:path";
import { KinoraError, KinoraNetworkError } from "@kinora/client";
import type { ClientContext } from "./command.js";
import { ApiFailure, Interrupted, isAbort, NetworkFailure } from "./failures.js";
import { formatBytes } from "./format.js";
import type { ApiClient } from "./http.js";
import { byteProgress } from "./progress.js";

/** Parts in flight at once by default (`--parallel`). */
export const DEFAULT_PARALLEL = 4;

/** What a parts upload did. */
export interface PartsOutcome {
  sent: number;
  had: number;
  puts: number;
}

/** Uploads the job's file in parts with one bar; resolves once every part arrived. */
export async function partsUploadStep(
  ctx: ClientContext,
  api: ApiClient,
  opts: { jobId: string; file: string; sizeBytes: number; partCount: number; parallel: number },
): Promise<PartsOutcome> {
  const { out } = ctx;
  const name = path.basename(opts.file);
  let bar: ReturnType<typeof byteProgress> | undefined;
  let announced = false;
  try {
    const result = await api.kinora.uploadRestoreParts(opts.jobId, opts.file, {
      signal: ctx.signal,
      concurrency: opts.parallel,
      onProgress: (done, total) => {
        if (!announced) {
          announced = true;
          const resumed = done > 0 ? `; ${formatBytes(done)} already there, sending the rest` : "";
          out.note(
            `Uploading ${name} (${formatBytes(total)}) in ${opts.partCount} parts, ${opts.parallel} at once${resumed}…`,
          );
          bar = byteProgress(out, "upload  ", total, done);
        }
        bar?.update(done);
      },
      onRetry: (part, attempt, delayMs, reason) => {
        // On a terminal the bar keeps going; a log says what happened.
        if (!out.interactive) {
          out.note(
            `Part ${part} broke off (${reason}); sending it again in ${(delayMs / 1000).toFixed(1)} s (attempt ${attempt + 1}).`,
          );
        }
      },
    });
    bar?.stop();
    return { sent: result.sent.length, had: result.had.length, puts: result.puts };
  } catch (err) {
    bar?.stop();
    if (ctx.signal.aborted || isAbort(err)) throw new Interrupted();
    if (err instanceof KinoraError) {
      throw new ApiFailure(err.status, {
        ...err.body,
        detail: `The upload was refused: ${err.detail}`,
      });
    }
    if (err instanceof KinoraNetworkError)
      throw new NetworkFailure(`The upload failed: ${err.message}.`);
    throw err;
  }
}

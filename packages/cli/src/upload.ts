/**
 * Sending a file to a job's upload_url, through the SDK's upload (one streamed PUT with exactly
 * the upload_headers and Content-Length, progress, retries of network errors and 5xx/408/429,
 * and a 409 on a retry counted as arrived since links are one-shot). This module adds what the
 * command line needs: how many attempts it took, and its own failures — the storage's refusal
 * as an ApiFailure, no answer as a NetworkFailure, Ctrl-C as Interrupted.
 */
import { type Kinora, KinoraError, KinoraNetworkError } from "@kinora/client";
import { ApiFailure, Interrupted, isAbort, NetworkFailure } from "./failures.js";

interface UploadOptions {
  url: string;
  headers: Record<string, string>;
  file: string;
  sizeBytes: number;
  signal?: AbortSignal;
  /** Bytes sent so far in the current attempt (restarts at 0 on a retry). */
  onProgress?: (bytes: number) => void;
  /** Called before waiting `delayMs` to retry after `reason`. */
  onRetry?: (attempt: number, delayMs: number, reason: string) => void;
  /** Attempts in all, first included. */
  maxAttempts?: number;
}

const UPLOAD_MAX_ATTEMPTS = 6;

/** Uploads the file, retrying transient failures; resolves with the number of attempts made. */
export async function uploadFile(
  kinora: Kinora,
  opts: UploadOptions,
): Promise<{ attempts: number }> {
  let attempts = 1;
  let lastReason = "";
  try {
    await kinora.upload({ upload_url: opts.url, upload_headers: opts.headers }, opts.file, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      maxRetries: (opts.maxAttempts ?? UPLOAD_MAX_ATTEMPTS) - 1,
      onProgress: (sent) => opts.onProgress?.(sent),
      onRetry: (attempt, delayMs, reason) => {
        attempts = attempt + 1;
        lastReason = reason;
        opts.onRetry?.(attempt, delayMs, reason);
      },
    });
    return { attempts };
  } catch (err) {
    if (opts.signal?.aborted || isAbort(err)) throw new Interrupted();
    if (err instanceof KinoraError) {
      throw new ApiFailure(err.status, { detail: `The upload was refused: ${err.detail}` });
    }
    if (err instanceof KinoraNetworkError) {
      const why = String((err.message.match(/\((.*)\)$/) ?? [])[1] ?? lastReason);
      throw new NetworkFailure(`The upload failed ${attempts} times; the last: ${why}.`);
    }
    throw err;
  }
}

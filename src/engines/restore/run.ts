/** Running ffmpeg/ffprobe for the restore engine, blaming the input only when it is at fault. */
import { recordOf } from "../../domain/records.js";
import {
  FfmpegError,
  ffmpegBinaries,
  type RunOptions,
  type RunResult,
  runFfprobe,
  runProcess,
} from "../ffmpeg.js";
import { CORRUPT_MESSAGE, errorTail, MediaError, mediaErrorFromStderr } from "./errors.js";

export { errorTail } from "./errors.js";

/**
 * Runs ffmpeg (adding -hide_banner -nostdin), or with `binary` "muxer" the build that joins our
 * own files (`FfmpegBinaries.muxer`). A non-zero exit becomes a MediaError when stderr
 * shows the input is unreadable, else an FfmpegError; an abort rejects with the signal's reason.
 */
export async function runFfmpegForMedia(
  args: string[],
  opts: RunOptions = {},
  binary: "ffmpeg" | "muxer" = "ffmpeg",
): Promise<RunResult> {
  opts.signal?.throwIfAborted();
  let result: RunResult;
  try {
    const bin = ffmpegBinaries()[binary];
    result = await runProcess(bin, ["-hide_banner", "-nostdin", ...args], opts);
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw err;
  }
  if (opts.signal?.aborted) throw opts.signal.reason;
  if (result.code !== 0) throw ffmpegFailure(result.code, result.stderr);
  return result;
}

/**
 * The error for an ffmpeg run that exited with `code`: a MediaError when its stderr shows the
 * input is at fault, else an FfmpegError carrying the end of stderr.
 */
export function ffmpegFailure(code: number, stderr: string): Error {
  return (
    mediaErrorFromStderr(stderr) ??
    new FfmpegError(`ffmpeg exited with code ${code}`, errorTail(stderr))
  );
}

/** ffprobe JSON of the container and streams; an unreadable file is a MediaError. */
export async function probeJson(
  inputPath: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  signal?.throwIfAborted();
  const args = ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", inputPath];
  let result: RunResult;
  try {
    result = await runFfprobe(args, { signal });
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw err;
  }
  if (result.code !== 0) {
    // A missing file is our bug (wrong path), not the customer's upload.
    if (/No such file or directory|Permission denied/.test(result.stderr)) {
      throw new FfmpegError(`ffprobe exited with code ${result.code}`, result.stderr.trim());
    }
    // ffprobe only reads headers: if it cannot, the file is not a video we can open.
    throw (
      mediaErrorFromStderr(result.stderr) ??
      new MediaError("corrupt", CORRUPT_MESSAGE, errorTail(result.stderr))
    );
  }
  return recordOf(JSON.parse(result.stdout));
}

/**
 * Runs two tasks at once under one signal. When either fails, the other is aborted (no
 * ffmpeg keeps running for nothing) and, once both have settled, the first task's error wins
 * over the second's, so which error the caller sees does not depend on timing.
 */
export async function bothOrAbort<A, B>(
  signal: AbortSignal | undefined,
  first: (signal: AbortSignal) => A | Promise<A>,
  second: (signal: AbortSignal) => B | Promise<B>,
): Promise<[A, B]> {
  signal?.throwIfAborted();
  const inner = new AbortController();
  const forward = () => inner.abort(signal?.reason);
  signal?.addEventListener("abort", forward, { once: true });
  const guard = <T>(task: (s: AbortSignal) => T | Promise<T>): Promise<T> =>
    Promise.resolve()
      .then(() => task(inner.signal))
      .catch((err: unknown) => {
        if (!inner.signal.aborted) inner.abort(err);
        throw err;
      });
  try {
    const [a, b] = await Promise.allSettled([guard(first), guard(second)]);
    if (signal?.aborted) throw signal.reason;
    if (a.status === "rejected") throw a.reason;
    if (b.status === "rejected") throw b.reason;
    return [a.value, b.value];
  } finally {
    signal?.removeEventListener("abort", forward);
  }
}

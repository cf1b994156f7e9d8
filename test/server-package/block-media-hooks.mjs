/**
 * Module hooks (registered by block-media-packages.mjs) that make the worker's optional media
 * packages unresolvable for `import`, as in an install with `--omit=optional`.
 */
const BLOCKED = [
  "@tensorflow/tfjs",
  "@tensorflow/tfjs-backend-wasm",
  "nsfwjs",
  "@ffmpeg-installer/ffmpeg",
  "@ffprobe-installer/ffprobe",
];

/** Whether `specifier` names one of the blocked packages or a file inside one. */
export function isBlocked(specifier) {
  return BLOCKED.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}

/** Says on stderr that a blocked package was asked for, then fails as Node does. */
export function notFound(specifier) {
  process.stderr.write(`test-blocker: refused ${specifier}\n`);
  const err = new Error(`Cannot find package '${specifier}' (blocked by the test)`);
  err.code = "ERR_MODULE_NOT_FOUND";
  return err;
}

export async function resolve(specifier, context, next) {
  if (isBlocked(specifier)) throw notFound(specifier);
  return next(specifier, context);
}

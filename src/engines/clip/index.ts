/**
 * Motion clips on the CPU: one still image + a prompt → a 5.00 s H.264/AAC MP4 with a camera
 * move (zoompan on a single frame) and a synthesized ambient bed, byte-identical per seed.
 */
export { buildClipArgs, type ClipArgsOptions, DEFAULT_X264_THREADS, videoGraph } from "./args.js";
export {
  type ClipEngine,
  type ClipInput,
  type ClipResult,
  createFfmpegClipEngine,
  type FfmpegClipEngineOptions,
} from "./engine.js";
export {
  DEFAULT_MAX_DIMENSION,
  DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_MAX_INPUT_PIXELS,
  ImageError,
  type ImageErrorCode,
  type NormaliseOptions,
  normaliseImage,
} from "./image.js";
export type { MotionPlan } from "./motion.js";
export {
  CLIP_FPS,
  CLIP_SECONDS,
  CLIP_SIZES,
  type ClipPlan,
  type ClipPlanInput,
  type ClipSize,
  chooseMotion,
  chooseSound,
  cropToFill,
  planClip,
} from "./plan.js";
export type { SoundPlan } from "./sound.js";
export { MOTION_WORDS, type MotionKind, SOUND_WORDS, type SoundKind } from "./words.js";

/**
 * Restoration engine for cloud restore jobs (ffmpeg chains). A probe pass measures the file and
 * `decidePlan` turns the measurements into a serialisable RestorePlan; `buildRestoreArgs`
 * turns a plan into the exact ffmpeg argument list the engine runs.
 */
export {
  buildAudioFilter,
  buildRestoreArgs,
  buildStabiliseDetectArgs,
  buildVideoFilter,
} from "./chain.js";
export { measureDurationSec } from "./duration.js";
export {
  createFfmpegRestoreEngine,
  type FfmpegRestoreEngineOptions,
  type RestoreEngine,
  type RestoreInput,
  type RestoreResult,
} from "./engine.js";
export { MediaError, type MediaErrorCode } from "./errors.js";
export {
  buildConcatList,
  buildJoinArgs,
  type JoinInput,
  type JoinResult,
  joinSegments,
  restoreSound,
} from "./join.js";
export { type Capabilities, decidePlan, LIMITS, type PlanInput } from "./plan.js";
export { ffmpegCapabilities, probeForPlan } from "./probe.js";
export { measureQuality, type QualityScore } from "./quality.js";
export {
  buildSegmentArgs,
  buildSegmentDetectArgs,
  type SegmentContext,
  type SegmentJob,
  segmentContext,
  segmentWindow,
} from "./segment-chain.js";
export {
  analyseForSegments,
  restoreSegment,
  type SegmentedAnalysis,
  type SegmentResult,
  type SegmentRunOptions,
  segmentJobs,
} from "./segment-run.js";
export {
  type CutOptions,
  type CutPlan,
  DEFAULT_SEGMENT_SEC,
  type FrameList,
  listFrames,
  planCuts,
  type SegmentSpec,
} from "./segments.js";
export type {
  FadeHint,
  Measurements,
  RestorePlan,
  RestoreQuality,
  SourceInfo,
} from "./types.js";

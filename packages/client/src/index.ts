/**
 * `@kinora/client`: a typed SDK for kinora's REST API — one method per operation, typed errors,
 * automatic Idempotency-Key and safe retries on money-moving calls, upload helpers (one PUT, or
 * parts in parallel that resume) and wait helpers over held reads. Built on `fetch`; no runtime dependencies.
 */
export {
  type CallOptions,
  createKinora,
  type Input,
  type Kinora,
  type KinoraOptions,
  type MethodArgs,
  type OperationMethods,
  type Output,
} from "./client.js";
export { type ErrorBody, KinoraError, KinoraNetworkError } from "./errors.js";
export * from "./generated.js";
export {
  JOB_KIND_NAMES,
  JOB_KINDS,
  type JobKindName,
  type JobOf,
  type KindCall,
  type KindCalls,
  type KindJobCalls,
  type KindWaits,
  kindCalls,
} from "./kinds/generated.js";
export { formatCents } from "./money.js";
export { restoreQualityFromName } from "./quality.js";
export { backoffMs, type RetryOptions, sleep } from "./retry.js";
export type { UploadOptions, UploadSource, UploadTarget } from "./upload.js";
export {
  type ArrivedPart,
  type PartLink,
  type PartsState,
  type PartsTransport,
  type PartsUploadOptions,
  type PartsUploadResult,
  uploadParts,
} from "./upload-parts.js";
export type { ClipJob, RestoreJob, WaitOptions } from "./wait.js";

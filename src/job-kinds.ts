/**
 * Every job kind kinora runs, in one list: the only place that names them. Each entry is the
 * kind's definition, the executor a worker runs for it, and its feature (features/job-kind.ts).
 * `kinora serve` mounts the features (features.ts), `kinora worker` runs the executors
 * (worker.ts), and the engine, worker API, storage, upload guard and metrics get the
 * definitions. A new kind is one line here.
 */

import type { JobKindEntry } from "./features/job-kind.js";
import { clipKind } from "./kinds/clips/kind.js";
import { restoreKind } from "./kinds/restore/kind.js";

/** The registry: every job kind the server and `kinora worker` run; the only list of kinds. */
export const JOB_KINDS: readonly JobKindEntry[] = [restoreKind, clipKind];

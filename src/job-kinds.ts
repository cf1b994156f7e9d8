/**
 * Every job kind kinora runs, in one list: the only place that names them. Each is declared
 * once in its folder (src/kinds/<kind>/kind.ts); the list is checked when it loads — at the
 * start of `kinora serve` and `kinora worker` — and refused when two kinds collide
 * (src/kinds/registry.ts). `kinora serve` mounts the kinds' features (features.ts), `kinora
 * worker` runs their executors (worker.ts), and everything below composition gets the parts it
 * needs. A new kind is its folder, one line here, and its migration.
 */
import { clipKind } from "./kinds/clips/kind.js";
import { previewKind } from "./kinds/preview/kind.js";
import { checkRegistry } from "./kinds/registry.js";
import { restoreKind } from "./kinds/restore/kind.js";
import { restoreSegmentsKind } from "./kinds/restore-segments/kind.js";

/** The registry: every job kind the server and `kinora worker` run, checked. */
export const JOB_KINDS = checkRegistry([restoreKind, clipKind, previewKind, restoreSegmentsKind]);

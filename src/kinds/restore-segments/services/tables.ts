/**
 * The table of a restore's work units (migration 017); it joins the database's table list (DB)
 * from here.
 */
import type { JobTable } from "../../../db/schema-columns.js";
import type { SegmentRole, SegmentStatus } from "../rules/transitions.js";

/** restore_segments: the engine's columns and the unit's own. */
export interface RestoreSegmentsTable extends JobTable<SegmentStatus> {
  /** The restore job the unit is part of. */
  parent_id: string;
  role: SegmentRole;
  /** The segment's place in the cut plan (0 for the sound and the join). */
  seg_index: number;
  /** The restore's quality (the work class the queue estimate measures units by). */
  quality: string;
  /** Seconds of source the unit covers. */
  span_sec: number;
  /** What the worker needs, JSON (services/spec.ts). */
  spec: string;
  /** ffmpeg's CPU seconds, as the worker measured them. */
  cpu_sec: number | null;
}

declare module "../../../db/schema.js" {
  interface DB {
    restore_segments: RestoreSegmentsTable;
  }
}

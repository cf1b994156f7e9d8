/**
 * What a restore hands to its units (the parent's `handOff.units`), and what each unit's row
 * keeps of it (`spec`, JSON): the whole file's plan and cut plan (one analysis: every segment
 * restored with the same decisions), where the restore's input is read and its result stored.
 * Plain data checked here, since it crosses from the restore kind's definition.
 */
import { z } from "zod";
import { SEGMENT_ROLES } from "../rules/transitions.js";

/** A JSON object made by the engine (its own types; the worker's engine reads it). */
const EngineData = z.custom<Record<string, unknown>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  "must be an object",
);

/** One segment of the cut plan, as the engine's SegmentSpec has it. */
const Segment = z.object({
  index: z.number().int().min(0),
  startSec: z.number(),
  endSec: z.number(),
  frames: z.number().int().min(1),
  onKeyframe: z.boolean(),
  last: z.boolean(),
});

/** What a segmented restore hands to its units. */
export const SegmentedUnits = z.object({
  quality: z.string(),
  /** The engine's RestorePlan (whole file). */
  plan: EngineData,
  /** The engine's CutPlan: its segments, the frame interval, where the picture starts. */
  cut: z
    .object({ frameSec: z.number().positive(), startSec: z.number(), endSec: z.number() })
    .passthrough()
    .and(z.object({ segments: z.array(Segment).min(2) })),
  /** The restore's input (read by every unit) and its result (stored by the join). */
  inputKey: z.string(),
  outputKey: z.string(),
  /** Where the join stores the restore's before/after still and its full-size frames. */
  stillKey: z.string().optional(),
  frameKeys: z.object({ before: z.string(), after: z.string() }).optional(),
  outputMaxBytes: z.number().int().positive(),
  /** How long the links a unit gets stay valid. */
  urlSec: z.number().int().positive(),
  /** Attempts each unit may use (the restore's own setting). */
  maxAttempts: z.number().int().min(1),
});
/** SegmentedUnits, parsed. */
export type SegmentedUnits = z.infer<typeof SegmentedUnits>;

/** A unit's row spec: the restore's hand-off, and which unit this is. */
const UnitSpec = z.object({
  units: SegmentedUnits,
  role: z.enum(SEGMENT_ROLES),
  index: z.number().int().min(0),
});
export type UnitSpec = z.infer<typeof UnitSpec>;

/** The row's spec, read back (and checked: a row written by another version fails loudly). */
export function readSpec(spec: string): UnitSpec {
  return UnitSpec.parse(JSON.parse(spec));
}

/** What a worker gets with a unit (the executor receives them parsed). */
export const SegmentWorkParams = z.object({
  role: z.enum(["segment", "sound", "join"]),
  index: z.number().int().min(0),
  plan: EngineData,
  /** segment: its place in the cut plan, and the source's frame interval. */
  segment: Segment.optional(),
  frameSec: z.number().positive().optional(),
  /** join: the cut plan, every segment's file in order, and the sound's (null: none). */
  cut: EngineData.optional(),
  parts: z.array(z.string()).optional(),
  sound: z.string().nullable().optional(),
  /** join: where the before/after still and the full-size frames go (output-ticket headers). */
  still: z.object({ headers: z.record(z.string(), z.string()) }).optional(),
  frames: z
    .object({
      before: z.object({ headers: z.record(z.string(), z.string()) }),
      after: z.object({ headers: z.record(z.string(), z.string()) }),
    })
    .optional(),
});
/** SegmentWorkParams, parsed. */
export type SegmentWorkParams = z.infer<typeof SegmentWorkParams>;

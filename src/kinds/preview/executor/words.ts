/**
 * A restore plan in customer words: what a quality would do to this video, one short phrase per
 * decision that changes the picture or the sound ("deinterlaced, bottom field first"; "light
 * grain removed"; "faded levels corrected"). Read from the plan's decisions, not its log notes,
 * so the words follow what will run. Pure.
 */
import type { RestorePlan } from "../../../engines/restore/index.js";

type Video = RestorePlan["video"];

const FIELD = { tff: "top field first", bff: "bottom field first" } as const;

/** How much grain a denoise takes out, by its luma strength. */
function grainWords(denoise: Video["denoise"]): string | null {
  const first = denoise[0];
  if (!first) return null;
  if (first.filter === "nlmeans") return "fine grain removed (non-local means)";
  const luma = first.lumaSpatial;
  if (luma === 0) return "colour noise removed";
  return luma < 6 ? "light grain removed" : luma < 10 ? "grain removed" : "heavy grain removed";
}

/**
 * What the deblock evens out: a starved encode's blocks (pp7, on the colour too), faint block
 * edges (the weak one), or those and the colour grain a denoise left (the weak one beside fspp).
 */
function deblockWords(deblock: Video["deblock"]): string | null {
  if (!deblock) return null;
  if (deblock.filter === "pp7" || deblock.filter === "pp7-colour") {
    return "compression blocks smoothed";
  }
  if (deblock.filter === "fspp-colour") {
    return "faint compression block edges and leftover colour grain smoothed";
  }
  return "faint compression block edges smoothed";
}

function sizeWords(plan: RestorePlan): string | null {
  const { output } = plan.video;
  const { width, height } = plan.source;
  if (!plan.video.scale || (output.width === width && output.height === height)) return null;
  const verb = output.height > height ? "upscaled" : "resized";
  return `${verb} to ${output.width}×${output.height}`;
}

/** The phrases of the picture's decisions, in the order the chain runs them. */
function pictureWords(plan: RestorePlan): string[] {
  const v = plan.video;
  const words: (string | null)[] = [
    v.deinterlace
      ? `deinterlaced, ${FIELD[v.deinterlace.parity]}${v.deinterlace.sendField ? ", every field a frame" : ""}`
      : null,
    v.stabilise ? "shake steadied" : null,
    v.deflicker ? "flicker evened out" : null,
    v.dropouts ? "tape dropouts repaired where found" : null,
    grainWords(v.denoise),
    v.chromaShift ? `colour moved back in line (${Math.abs(v.chromaShift)} px)` : null,
    v.levels ? "faded levels corrected" : null,
    v.saturation !== null && v.saturation > 1 ? "faded colour revived" : null,
    v.saturation === 0 ? "black and white kept clean of colour noise" : null,
    v.sharpen ? "soft picture sharpened" : null,
    deblockWords(v.deblock),
    v.scale?.convertMatrixTo709 ? "colours converted for HD screens" : null,
    sizeWords(plan),
  ];
  return words.filter((w): w is string => w !== null);
}

/** The phrases of the sound's decisions. */
function soundWords(plan: RestorePlan): string[] {
  const a = plan.audio;
  if (!a) return [];
  return [
    a.hum ? `${a.hum.hz} Hz mains hum removed` : null,
    a.denoise ? "tape hiss reduced" : null,
    a.loudness ? "loudness evened out" : null,
  ].filter((w): w is string => w !== null);
}

/** What the plan does, in words; "kept as it is, re-encoded cleanly" when it changes nothing. */
export function planWords(plan: RestorePlan): string[] {
  const words = [...pictureWords(plan), ...soundWords(plan)];
  return words.length > 0 ? words : ["kept as it is, re-encoded cleanly"];
}

/**
 * Ground truth for the quality benchmark: real photographs from Debian's wallpaper packages made
 * into slow pans and zooms at 50p (960×720, lossless), kept as the even frames at 25p for the
 * reference. A pan of a still has no noise, no interlacing and no compression, so whatever a
 * restore gets wrong shows up against it.
 *
 * The photographs are split, once and for all, into a tuning set (thresholds are chosen on it)
 * and a held-out set (only ever measured): a rule fitted to the tuning pictures shows itself on
 * the others. Each set has foliage, fine texture, fog or low contrast, strong colour and bokeh.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";

export type PhotoSet = "tuning" | "heldout";

/** Where each photograph comes from, and how the camera moves over it. */
export interface Photo {
  name: string;
  file: string;
  /** Debian package that installs `file`. */
  debianPackage: string;
  set: PhotoSet;
  /** Zoom at the start and at the end (1 = the whole 4:3 crop of the photo). */
  zoom: [number, number];
  /** Left edge of the view as a share of the free width, at the start and at the end. */
  x: [number, number];
  y: [number, number];
  /** Why this picture is in the set. */
  why: string;
}

const plasma = (dir: string) => `/usr/share/wallpapers/${dir}/contents/images/2560x1600.jpg`;
const mate = (name: string) => `/usr/share/backgrounds/mate/nature/${name}.jpg`;
const PLASMA = "plasma-workspace-wallpapers";
const MATE = "mate-backgrounds";

export const PHOTOS: Photo[] = [
  // Tuning set.
  {
    name: "boats",
    file: plasma("EveningGlow"),
    debianPackage: PLASMA,
    set: "tuning",
    zoom: [1.25, 1.4],
    x: [0.2, 0.7],
    y: [0.5, 0.5],
    why: "gravel and rigging under a saturated sky; clipped blacks",
  },
  {
    name: "forest",
    file: plasma("Path"),
    debianPackage: PLASMA,
    set: "tuning",
    zoom: [1.2, 1.2],
    x: [0.1, 0.8],
    y: [0.4, 0.6],
    why: "dark, muted forest floor: fine texture everywhere, nothing to revive",
  },
  {
    name: "fog",
    file: plasma("ColdRipple"),
    debianPackage: PLASMA,
    set: "tuning",
    zoom: [1.1, 1.35],
    x: [0.5, 0.5],
    y: [0.5, 0.6],
    why: "grey fog, low contrast on purpose: nothing to stretch",
  },
  {
    name: "cups",
    file: plasma("ColorfulCups"),
    debianPackage: PLASMA,
    set: "tuning",
    zoom: [1.3, 1.3],
    x: [0.0, 0.6],
    y: [0.3, 0.5],
    why: "strong colour edges: chroma bleed, slips and matrix errors show",
  },
  {
    name: "dune",
    file: mate("Dune"),
    debianPackage: MATE,
    set: "tuning",
    zoom: [1.2, 1.3],
    x: [0.2, 0.6],
    y: [0.6, 0.4],
    why: "grass blades against sky: fine texture denoisers eat; blacks at 50",
  },
  {
    name: "storm",
    file: mate("Storm"),
    debianPackage: MATE,
    set: "tuning",
    zoom: [1.15, 1.3],
    x: [0.3, 0.6],
    y: [0.5, 0.5],
    why: "a pale, muted storm sky and a road: low contrast and smooth gradients",
  },
  {
    name: "blinds",
    file: mate("Blinds"),
    debianPackage: MATE,
    set: "tuning",
    zoom: [1.3, 1.2],
    x: [0.6, 0.3],
    y: [0.4, 0.6],
    why: "a saturated leaf's fine parallel veins; luma only 76–190: low contrast, not faded",
  },
  // Held-out set: never looked at while choosing a threshold.
  {
    name: "moss",
    file: plasma("OneStandsOut"),
    debianPackage: PLASMA,
    set: "heldout",
    zoom: [1.25, 1.35],
    x: [0.3, 0.6],
    y: [0.6, 0.4],
    why: "moss seen from above: dense fine foliage, dark",
  },
  {
    name: "lake",
    file: plasma("DarkestHour"),
    debianPackage: PLASMA,
    set: "heldout",
    zoom: [1.15, 1.3],
    x: [0.4, 0.6],
    y: [0.5, 0.5],
    why: "dark blue fog over a lake: low contrast on purpose, no white at all",
  },
  {
    name: "planks",
    file: plasma("BytheWater"),
    debianPackage: PLASMA,
    set: "heldout",
    zoom: [1.2, 1.35],
    x: [0.2, 0.5],
    y: [0.6, 0.6],
    why: "wood grain of a jetty and glittering water: fine texture and colour edges",
  },
  {
    name: "meadow",
    file: mate("GreenMeadow"),
    debianPackage: MATE,
    set: "heldout",
    zoom: [1.2, 1.3],
    x: [0.3, 0.7],
    y: [0.5, 0.4],
    why: "grass blades filling the frame: fine foliage; blacks at 60",
  },
  {
    name: "wood",
    file: mate("Wood"),
    debianPackage: MATE,
    set: "heldout",
    zoom: [1.3, 1.4],
    x: [0.2, 0.6],
    y: [0.4, 0.6],
    why: "pale weathered wood, bright and low contrast: a fabric-like fine grain",
  },
  {
    name: "ladybird",
    file: mate("LadyBird"),
    debianPackage: MATE,
    set: "heldout",
    zoom: [1.3, 1.4],
    x: [0.5, 0.6],
    y: [0.4, 0.5],
    why: "a red ladybird and blue flowers on bokeh: colour edges and smooth areas",
  },
  {
    name: "grey",
    file: plasma("Grey"),
    debianPackage: PLASMA,
    set: "heldout",
    zoom: [1.2, 1.3],
    x: [0.3, 0.6],
    y: [0.5, 0.5],
    why: "black-and-white architecture: full range, hard edges, no colour",
  },
];

export const REFERENCE = { width: 960, height: 720, fieldRate: 50 } as const;

export type ReferenceSize = { width: number; height: number; fieldRate: number };

/** Debian packages a photo set needs that are not installed, for the error message. */
export function missingPackages(photos: Photo[]): string[] {
  return [...new Set(photos.filter((p) => !existsSync(p.file)).map((p) => p.debianPackage))];
}

const lerp = ([a, b]: [number, number], frames: number) => `(${a}+(${b - a})*on/${frames})`;

/**
 * A scene's grade: its luma lifted (or lowered) by `lift` codes. The graded pan is the ground
 * truth itself — a brighter fog is still fog, and a restore must leave it so.
 */
export interface Grade {
  lift: number;
}

/** zoompan over a 4:3 crop of the photo, one decoded still, `frames` output frames. */
export function panFilter(
  photo: Photo,
  frames: number,
  size: ReferenceSize = REFERENCE,
  grade?: Grade,
): string {
  const z = lerp(photo.zoom, frames);
  const x = `(iw-iw/zoom)*${lerp(photo.x, frames)}`;
  const y = `(ih-ih/zoom)*${lerp(photo.y, frames)}`;
  const chain = [
    // The 4:3 middle of the photo, so zoompan keeps the picture's shape.
    "crop='min(iw,ih*4/3)':'min(ih,iw*3/4)'",
    `zoompan=z='${z}':x='${x}':y='${y}':d=${frames}:s=${size.width}x${size.height}:fps=${size.fieldRate}`,
    "format=yuv420p",
  ];
  if (grade?.lift) chain.push(`lutyuv=y='clip(val+(${grade.lift}),16,235)'`);
  return chain.join(",");
}

const BT709 = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"];
const LOSSLESS = ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", ...BT709];

export interface Reference {
  /** The clean 50p pan (what every degradation starts from). */
  field: string;
  /** Its even frames at 25p: what a restore of the 25-frame tape is compared with. */
  frame: string;
}

/** A scene's name: the photo's, with its grade (`fog+8`). */
export function sceneName(photo: Photo, grade?: Grade): string {
  if (!grade?.lift) return photo.name;
  return `${photo.name}${grade.lift > 0 ? "+" : ""}${grade.lift}`;
}

/** Builds (once: kept in `dir`) the 50p pan and the 25p reference of one photograph. */
export async function buildReference(
  photo: Photo,
  dir: string,
  seconds: number,
  size: ReferenceSize = REFERENCE,
  grade?: Grade,
): Promise<Reference> {
  const scene = sceneName(photo, grade);
  const field = join(dir, `${scene}-${seconds}s-${size.height}-ref50.mkv`);
  const frame = join(dir, `${scene}-${seconds}s-${size.height}-ref25.mkv`);
  const frames = Math.round(seconds * size.fieldRate);
  if (!existsSync(field)) {
    const pan = panFilter(photo, frames, size, grade);
    const args = ["-y", "-i", photo.file, "-vf", pan, "-frames:v", String(frames)];
    await runFfmpeg([...args, ...LOSSLESS, field]);
  }
  if (!existsSync(frame)) {
    await runFfmpeg(["-y", "-i", field, "-vf", "framestep=2", ...LOSSLESS, frame]);
  }
  return { field, frame };
}

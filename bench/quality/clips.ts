/**
 * Ground truth for the quality benchmark: real photographs from Debian's wallpaper packages made
 * into slow pans and zooms at 50p (960×720, lossless), kept as the even frames at 25p for the
 * reference. A pan of a still has no noise, no interlacing and no compression, so whatever a
 * restore gets wrong shows up against it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";

/** Where each photograph comes from, and how the camera moves over it. */
export interface Photo {
  name: string;
  file: string;
  /** Debian package that installs `file`. */
  debianPackage: string;
  /** Zoom at the start and at the end (1 = the whole 4:3 crop of the photo). */
  zoom: [number, number];
  /** Left edge of the view as a share of the free width, at the start and at the end. */
  x: [number, number];
  y: [number, number];
  /** Why this picture is in the set. */
  why: string;
}

const plasma = (dir: string) => `/usr/share/wallpapers/${dir}/contents/images/2560x1600.jpg`;

export const PHOTOS: Photo[] = [
  {
    name: "boats",
    file: plasma("EveningGlow"),
    debianPackage: "plasma-workspace-wallpapers",
    zoom: [1.25, 1.4],
    x: [0.2, 0.7],
    y: [0.5, 0.5],
    why: "fine detail (gravel, rigging) under a saturated sky",
  },
  {
    name: "forest",
    file: plasma("Path"),
    debianPackage: "plasma-workspace-wallpapers",
    zoom: [1.2, 1.2],
    x: [0.1, 0.8],
    y: [0.4, 0.6],
    why: "a clean, muted forest: nothing to revive",
  },
  {
    name: "fog",
    file: plasma("ColdRipple"),
    debianPackage: "plasma-workspace-wallpapers",
    zoom: [1.1, 1.35],
    x: [0.5, 0.5],
    y: [0.5, 0.6],
    why: "a clean, deliberately foggy low-contrast scene: nothing to stretch",
  },
  {
    name: "cups",
    file: plasma("ColorfulCups"),
    debianPackage: "plasma-workspace-wallpapers",
    zoom: [1.3, 1.3],
    x: [0.0, 0.6],
    y: [0.3, 0.5],
    why: "strong colour edges: chroma bleed and matrix errors show",
  },
  {
    name: "leaf",
    file: plasma("FallenLeaf"),
    debianPackage: "plasma-workspace-wallpapers",
    zoom: [1.4, 1.2],
    x: [0.6, 0.4],
    y: [0.5, 0.5],
    why: "smooth bokeh beside sharp edges: banding, halos and denoise smear",
  },
  {
    name: "dune",
    file: "/usr/share/backgrounds/mate/nature/Dune.jpg",
    debianPackage: "mate-backgrounds",
    zoom: [1.2, 1.3],
    x: [0.2, 0.6],
    y: [0.6, 0.4],
    why: "grass blades against sky: high-frequency texture that denoisers eat",
  },
];

export const REFERENCE = { width: 960, height: 720, fieldRate: 50 } as const;

/** Debian packages a photo set needs that are not installed, for the error message. */
export function missingPackages(photos: Photo[]): string[] {
  return [...new Set(photos.filter((p) => !existsSync(p.file)).map((p) => p.debianPackage))];
}

const lerp = ([a, b]: [number, number], frames: number) => `(${a}+(${b - a})*on/${frames})`;

/** zoompan over a 4:3 crop of the photo, one decoded still, `frames` output frames. */
export function panFilter(
  photo: Photo,
  frames: number,
  size: { width: number; height: number; fieldRate: number } = REFERENCE,
): string {
  const z = lerp(photo.zoom, frames);
  const x = `(iw-iw/zoom)*${lerp(photo.x, frames)}`;
  const y = `(ih-ih/zoom)*${lerp(photo.y, frames)}`;
  return [
    // The 4:3 middle of the photo, so zoompan keeps the picture's shape.
    "crop='min(iw,ih*4/3)':'min(ih,iw*3/4)'",
    `zoompan=z='${z}':x='${x}':y='${y}':d=${frames}:s=${size.width}x${size.height}:fps=${size.fieldRate}`,
    "format=yuv420p",
  ].join(",");
}

const BT709 = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"];
const LOSSLESS = ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", ...BT709];

export interface Reference {
  /** The clean 50p pan (what every degradation starts from). */
  field: string;
  /** Its even frames at 25p: what a restore of the 25-frame tape is compared with. */
  frame: string;
}

/** Builds (once: kept in `dir`) the 50p pan and the 25p reference of one photograph. */
export async function buildReference(
  photo: Photo,
  dir: string,
  seconds: number,
  size: { width: number; height: number; fieldRate: number } = REFERENCE,
): Promise<Reference> {
  const field = join(dir, `${photo.name}-${seconds}s-${size.height}-ref50.mkv`);
  const frame = join(dir, `${photo.name}-${seconds}s-${size.height}-ref25.mkv`);
  const frames = Math.round(seconds * size.fieldRate);
  if (!existsSync(field)) {
    const pan = panFilter(photo, frames, size);
    await runFfmpeg([
      "-y",
      "-i",
      photo.file,
      "-vf",
      pan,
      "-frames:v",
      String(frames),
      ...LOSSLESS,
      field,
    ]);
  }
  if (!existsSync(frame)) {
    await runFfmpeg(["-y", "-i", field, "-vf", "framestep=2", ...LOSSLESS, frame]);
  }
  return { field, frame };
}

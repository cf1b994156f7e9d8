/**
 * Prompt words → camera motion and ambient sound, plus the seeded random numbers both use.
 *
 * Matching is deliberately plain (phrases on word boundaries, earliest mention wins) so a caller
 * can predict the result from the prompt and the README can list the words.
 */

export type MotionKind =
  | "zoom_in"
  | "zoom_out"
  | "pan_left"
  | "pan_right"
  | "tilt_up"
  | "tilt_down"
  | "drift"
  | "still";

export type SoundKind = "rain" | "ocean" | "water" | "wind" | "city" | "forest" | "fire" | "room";

/** Phrases per motion. A bare "pan"/"tilt"/"zoom" is listed under its most common reading. */
export const MOTION_WORDS: Readonly<Record<MotionKind, readonly string[]>> = {
  zoom_in: [
    "zoom in",
    "zooms in",
    "zooming in",
    "zoom",
    "push in",
    "pushes in",
    "pushing in",
    "push",
    "dolly in",
    "move closer",
    "moving closer",
    "closer",
    "approach",
    "approaching",
  ],
  zoom_out: [
    "zoom out",
    "zooms out",
    "zooming out",
    "pull back",
    "pulls back",
    "pulling back",
    "pull out",
    "pulls out",
    "pulling out",
    "dolly out",
    "reveal",
    "reveals",
    "revealing",
  ],
  pan_left: ["pan left", "pans left", "panning left"],
  pan_right: ["pan right", "pans right", "panning right", "pan", "pans", "panning"],
  tilt_up: ["tilt up", "tilts up", "tilting up", "tilt", "crane up", "look up", "rising", "rise"],
  tilt_down: ["tilt down", "tilts down", "tilting down", "crane down", "look down", "descend"],
  drift: [
    "orbit",
    "orbits",
    "orbiting",
    "drift",
    "drifts",
    "drifting",
    "float",
    "floating",
    "sway",
    "swaying",
    "handheld",
  ],
  still: ["static", "still camera", "locked off", "tripod"],
};

export const SOUND_WORDS: Readonly<Record<SoundKind, readonly string[]>> = {
  rain: ["rain", "rains", "raining", "rainy", "drizzle", "downpour", "storm", "stormy", "thunder"],
  ocean: [
    "ocean",
    "sea",
    "seaside",
    "wave",
    "waves",
    "surf",
    "beach",
    "shore",
    "coast",
    "tide",
    "harbor",
    "harbour",
  ],
  water: ["river", "stream", "creek", "brook", "waterfall", "fountain", "rapids"],
  wind: [
    "wind",
    "windy",
    "breeze",
    "gust",
    "gusts",
    "mountain",
    "mountains",
    "desert",
    "snow",
    "snowy",
    "blizzard",
    "cliff",
  ],
  city: [
    "city",
    "street",
    "streets",
    "traffic",
    "car",
    "cars",
    "urban",
    "downtown",
    "crowd",
    "market",
    "subway",
    "train",
    "station",
    "highway",
  ],
  forest: [
    "forest",
    "woods",
    "jungle",
    "bird",
    "birds",
    "birdsong",
    "garden",
    "park",
    "meadow",
    "tree",
    "trees",
  ],
  fire: [
    "fire",
    "campfire",
    "fireplace",
    "bonfire",
    "flame",
    "flames",
    "candle",
    "candles",
    "hearth",
    "embers",
  ],
  room: [],
};

/** Defaults drawn by seed when the prompt names no motion; "still" is only ever asked for. */
export const DEFAULT_MOTIONS: readonly MotionKind[] = [
  "zoom_in",
  "zoom_in",
  "zoom_out",
  "pan_left",
  "pan_right",
  "drift",
];

/** Lower-case words separated by single spaces, padded so phrases match on word boundaries. */
function normalisePrompt(prompt: string): string {
  const words = prompt
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, " ");
  return ` ${words.trim()} `;
}

/**
 * The kind whose phrase appears first in the prompt; at the same position the longer phrase
 * wins, so "zoom out" beats "zoom". Undefined when nothing matches.
 */
export function firstMention<K extends string>(
  prompt: string,
  table: Readonly<Record<K, readonly string[]>>,
): K | undefined {
  const text = normalisePrompt(prompt);
  let best: { kind: K; at: number; length: number } | undefined;
  // cast: Object.keys of a Record<K, …> built from the literal table is exactly its K keys
  for (const kind of Object.keys(table) as K[]) {
    for (const phrase of table[kind]) {
      const at = text.indexOf(` ${phrase} `);
      if (at < 0) continue;
      if (!best || at < best.at || (at === best.at && phrase.length > best.length)) {
        best = { kind, at, length: phrase.length };
      }
    }
  }
  return best?.kind;
}

/**
 * Folds any finite number into 32 bits without losing its high part, then derives an
 * independent stream per purpose so adding a random draw to the motion never changes the sound.
 */
export function deriveSeed(seed: number, stream: number): number {
  if (!Number.isFinite(seed)) throw new RangeError("seed must be a finite number");
  const whole = Math.trunc(seed);
  const lo = whole >>> 0;
  const hi = Math.floor(whole / 2 ** 32) >>> 0;
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hi + stream, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Mulberry32: tiny, fast and good enough for choosing camera paths and noise seeds. */
export function createRng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A uniform draw in [min, max). */
export function between(rng: () => number, min: number, max: number): number {
  return min + (max - min) * rng();
}

/** A 32-bit integer for ffmpeg's `seed` options (anoisesrc accepts 0..UINT32_MAX). */
export function seed32(rng: () => number): number {
  return Math.floor(rng() * 4294967296) >>> 0;
}

/**
 * planClip: everything about a clip decided up front, as plain data, from the prompt, size,
 * loop flag, seed and image size. Pure and deterministic, so a plan can be logged, compared in
 * tests and replayed by a benchmark through buildClipArgs.
 */
import { type MotionPlan, planMotion } from "./motion.js";
import { planSound, type SoundPlan } from "./sound.js";
import {
  createRng,
  DEFAULT_MOTIONS,
  deriveSeed,
  firstMention,
  MOTION_WORDS,
  type MotionKind,
  SOUND_WORDS,
  type SoundKind,
} from "./words.js";

export type ClipSize = "480p" | "720p";

export const CLIP_SECONDS = 5;
export const CLIP_FPS = 25;
/** zoompan works on the image scaled to this multiple of the output: enough detail for a
 * 1.4× zoom without upscaling, small enough that per-frame scaling stays cheap. */
const WORK_SCALE = 1.5;

export const CLIP_SIZES: Readonly<Record<ClipSize, { width: number; height: number }>> = {
  "480p": { width: 854, height: 480 },
  "720p": { width: 1280, height: 720 },
};

/** The frame zoompan moves over for a size. */
export function workSize(size: ClipSize): { width: number; height: number } {
  const { width, height } = CLIP_SIZES[size];
  return { width: Math.round(width * WORK_SCALE), height: Math.round(height * WORK_SCALE) };
}

/** What a clip plan is made from: prompt, size, loop, seed and the image's size. */
export interface ClipPlanInput {
  prompt: string;
  size: ClipSize;
  loop: boolean;
  seed: number;
  imageWidth: number;
  imageHeight: number;
}

/** Everything ffmpeg needs to make one clip, decided from its inputs alone (reproducible). */
export interface ClipPlan {
  size: ClipSize;
  width: number;
  height: number;
  fps: number;
  frames: number;
  durationSec: number;
  loop: boolean;
  /** Crop-to-fill rectangle in source-image pixels (output aspect, no letterbox bars). */
  crop: { x: number; y: number; width: number; height: number };
  /** Size of the frame zoompan moves over. */
  work: { width: number; height: number };
  motion: MotionPlan;
  sound: SoundPlan;
  /** x264 rate control: constant quality, so the bytes depend only on the pictures. */
  crf: number;
  audioBitrateK: number;
}

/**
 * Crop to the output aspect. Landscape sources keep their centre; tall sources keep a band a
 * little above the middle, where subjects and horizons usually sit in portrait photos.
 */
export function cropToFill(
  imageWidth: number,
  imageHeight: number,
  aspect: number,
): ClipPlan["crop"] {
  if (imageWidth / imageHeight > aspect) {
    const width = Math.max(1, Math.min(imageWidth, Math.round(imageHeight * aspect)));
    return { x: Math.floor((imageWidth - width) / 2), y: 0, width, height: imageHeight };
  }
  const height = Math.max(1, Math.min(imageHeight, Math.round(imageWidth / aspect)));
  const bias = imageHeight > imageWidth ? 0.4 : 0.5;
  return { x: 0, y: Math.floor((imageHeight - height) * bias), width: imageWidth, height };
}

function checkInput(input: ClipPlanInput): void {
  if (!(input.size in CLIP_SIZES)) throw new RangeError(`unknown clip size ${input.size}`);
  if (!Number.isFinite(input.seed)) throw new RangeError("seed must be a finite number");
  for (const side of [input.imageWidth, input.imageHeight]) {
    if (!Number.isInteger(side) || side < 1) throw new RangeError("image size must be positive");
  }
}

/** The motion the prompt asks for, else one drawn by seed. */
export function chooseMotion(prompt: string, seed: number): MotionKind {
  const named = firstMention(prompt, MOTION_WORDS);
  if (named) return named;
  const rng = createRng(deriveSeed(seed, 3));
  return DEFAULT_MOTIONS[Math.floor(rng() * DEFAULT_MOTIONS.length)] ?? "zoom_in";
}

/** The ambience the prompt suggests, else a soft room tone with a pad. */
export function chooseSound(prompt: string): SoundKind {
  return firstMention(prompt, SOUND_WORDS) ?? "room";
}

export function planClip(input: ClipPlanInput): ClipPlan {
  checkInput(input);
  const { width, height } = CLIP_SIZES[input.size];
  const frames = CLIP_SECONDS * CLIP_FPS;
  const motionKind = chooseMotion(input.prompt, input.seed);
  const soundKind = chooseSound(input.prompt);
  return {
    size: input.size,
    width,
    height,
    fps: CLIP_FPS,
    frames,
    durationSec: CLIP_SECONDS,
    loop: input.loop,
    crop: cropToFill(input.imageWidth, input.imageHeight, width / height),
    work: workSize(input.size),
    motion: planMotion(motionKind, frames, input.loop, createRng(deriveSeed(input.seed, 1))),
    sound: planSound(soundKind, deriveSeed(input.seed, 2), CLIP_SECONDS, input.loop),
    crf: input.size === "720p" ? 21 : 20,
    audioBitrateK: 128,
  };
}

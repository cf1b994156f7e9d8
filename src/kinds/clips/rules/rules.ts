/**
 * Clip prices and limits: one place that the routes, services, GET /motion/config and the docs
 * agree on. Prices are integer cents (SPEC: $0.59 at 480p, $0.99 at 720p).
 */
import { displayCents } from "../../../domain/money.js";

const SIZES = ["480p", "720p"] as const;
/** A clip's frame size. */
export type ClipSize = (typeof SIZES)[number];
/** Every clip size: the one list (a non-empty tuple, as enum schemas want it). */
export const CLIP_SIZES: [ClipSize, ...ClipSize[]] = [...SIZES];
/** The size when none is asked for. */
export const DEFAULT_CLIP_SIZE: ClipSize = "480p";
/** The price of a clip of each size, in cents. */
export const CLIP_PRICE_CENTS: Readonly<Record<ClipSize, number>> = { "480p": 59, "720p": 99 };
/** The frame of each size. */
export const CLIP_DIMENSIONS: Readonly<Record<ClipSize, { width: number; height: number }>> = {
  "480p": { width: 854, height: 480 },
  "720p": { width: 1280, height: 720 },
};
/** Clip lengths offered (5 seconds only). */
export const CLIP_SECONDS_ALLOWED: readonly number[] = [5];
/** Image types a clip starts from. */
export const CLIP_IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;
/** One of CLIP_IMAGE_TYPES. */
export type ClipImageType = (typeof CLIP_IMAGE_TYPES)[number];
/** Largest image accepted, uploaded or fetched from image_url. */
export const CLIP_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
/** The longest prompt, in characters. */
export const CLIP_PROMPT_MAX_CHARS = 800;
/** The largest seed (a signed 32-bit integer). */
export const CLIP_SEED_MAX = 2_147_483_647;
/** The longest image_url accepted. */
export const CLIP_IMAGE_URL_MAX_CHARS = 2048;
/** Time allowed to fetch an image_url (whole fetch, redirects included). */
export const CLIP_IMAGE_FETCH_TIMEOUT_MS = 10_000;
/** How long an upload_url stays valid; an awaiting_upload clip expires (refunded) after it. */
export const CLIP_UPLOAD_WINDOW_SEC = 60 * 60;
/** How long download links stay valid once issued. */
export const CLIP_DOWNLOAD_URL_SEC = 60 * 60;
/** Largest clip a worker may hand back (a 5 s 720p clip is a few MB). */
export const CLIP_OUTPUT_MAX_BYTES = 200 * 1024 * 1024;
/** The most clips one page of a list holds. */
export const CLIP_LIST_MAX = 40;

/** The price of a clip of `size`, in cents and for display. */
export function clipPrice(size: ClipSize): {
  size: ClipSize;
  amount_cents: number;
  display: string;
} {
  const amount = CLIP_PRICE_CENTS[size];
  return { size, amount_cents: amount, display: displayCents(amount) };
}

/**
 * Run seconds per second of clip, by size, assumed until this deployment has finished clips
 * to measure (queue ETA): the local engine makes a 5 s clip in about 1.2 s at 480p and 2.4 s at
 * 720p on 2 cores, plus image fetch, moderation and upload.
 */
export const CLIP_DEFAULT_RUN_RATES: Readonly<Record<ClipSize, number>> = {
  "480p": 0.4,
  "720p": 0.7,
};

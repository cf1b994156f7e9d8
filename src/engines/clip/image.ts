/**
 * Turning whatever the caller uploaded into one plain, upright, bounded sRGB PNG frame, or a
 * clear refusal. ffmpeg never sees the caller's file: only sharp parses untrusted bytes, under
 * byte and pixel limits, and only formats we mean to accept get past the header check.
 */
import { stat, writeFile } from "node:fs/promises";
import type { Metadata, OutputInfo } from "sharp";

/** sharp (a native module) is loaded with the first image, not with every process. */
const loadSharp = async () => (await import("sharp")).default;

import { cropToFill } from "./plan.js";

export type ImageErrorCode = "not_image" | "animated" | "too_large" | "unsupported";

/** A refusal of the image itself; `message` is one user-facing sentence saying what to fix. */
export class ImageError extends Error {
  constructor(
    readonly code: ImageErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ImageError";
  }
}

/** Bounds for decoding and normalising a clip's image. */
export interface NormaliseOptions {
  /** Decoded pixels allowed (width × height); a decompression bomb stops here. */
  maxInputPixels?: number;
  maxInputBytes?: number;
  /** Longest side of the output frame. */
  maxDimension?: number;
  /**
   * Crop to this box's aspect (see cropToFill) and shrink to at most this size, never
   * enlarging. The clip engine passes its working size, so ffmpeg decodes and scales no more
   * pixels than the camera move can show, even for a 40-megapixel panorama.
   */
  fill?: { width: number; height: number };
}

export const DEFAULT_MAX_INPUT_PIXELS = 40_000_000;
export const DEFAULT_MAX_INPUT_BYTES = 25 * 1024 * 1024;
export const DEFAULT_MAX_DIMENSION = 2560;
const MIN_SIDE = 16;

/** Formats we accept. SVG and PDF are refused: they are documents, and SVG can reference files. */
const ACCEPTED = new Set(["jpeg", "png", "webp", "gif", "heif", "tiff"]);

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

async function readHeader(inputPath: string, maxPixels: number): Promise<Metadata> {
  let meta: Metadata;
  try {
    const sharp = await loadSharp();
    meta = await sharp(inputPath, { limitInputPixels: false }).metadata();
  } catch {
    throw new ImageError(
      "not_image",
      "The file is not an image we can read; upload a JPEG, PNG or WebP photo.",
    );
  }
  if (!ACCEPTED.has(meta.format)) {
    throw new ImageError(
      "unsupported",
      `${meta.format.toUpperCase()} images are not supported; upload a JPEG, PNG or WebP photo.`,
    );
  }
  // Prebuilt sharp decodes AVIF but not HEVC-coded HEIC, which shares the "heif" container.
  if (meta.format === "heif" && meta.compression !== "av1") {
    throw new ImageError(
      "unsupported",
      "HEIC photos are not supported; export the photo as JPEG and upload that.",
    );
  }
  if ((meta.pages ?? 1) > 1) {
    throw new ImageError(
      "animated",
      "The image is animated or has several frames; upload a single still image.",
    );
  }
  if (meta.width * meta.height > maxPixels) {
    const mp = Math.round(maxPixels / 1_000_000);
    throw new ImageError(
      "too_large",
      `The image is ${meta.width}×${meta.height} pixels; upload one of at most ${mp} megapixels.`,
    );
  }
  if (Math.min(meta.width, meta.height) < MIN_SIDE) {
    throw new ImageError(
      "unsupported",
      `The image is ${meta.width}×${meta.height} pixels; upload one at least ${MIN_SIDE} pixels on each side.`,
    );
  }
  return meta;
}

interface Geometry {
  extract?: { left: number; top: number; width: number; height: number };
  width: number;
  height: number;
}

/** Region to keep (upright coordinates) and output size: never enlarged, within maxSide. */
function geometry(
  width: number,
  height: number,
  maxSide: number,
  fill?: { width: number; height: number },
): Geometry {
  if (!fill) {
    const scale = Math.min(1, maxSide / Math.max(width, height));
    return { width: Math.round(width * scale), height: Math.round(height * scale) };
  }
  const crop = cropToFill(width, height, fill.width / fill.height);
  const scale = Math.min(1, fill.width / crop.width, fill.height / crop.height);
  return {
    extract: { left: crop.x, top: crop.y, width: crop.width, height: crop.height },
    width: Math.max(1, Math.round(crop.width * scale)),
    height: Math.max(1, Math.round(crop.height * scale)),
  };
}

/**
 * Reads `inputPath`, refuses what we cannot use (ImageError), and writes an upright 8-bit sRGB
 * PNG without metadata, fitted within `maxDimension`, to `outputPath`. Transparency is flattened
 * onto black, which is what video shows around a picture anyway. Returns the output size and the
 * detected input format.
 */
export async function normaliseImage(
  inputPath: string,
  outputPath: string,
  opts: NormaliseOptions = {},
): Promise<{ width: number; height: number; format: string }> {
  const maxPixels = opts.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  const maxBytes = opts.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const maxSide = opts.maxDimension ?? DEFAULT_MAX_DIMENSION;
  const { size } = await stat(inputPath);
  if (size > maxBytes) {
    throw new ImageError(
      "too_large",
      `The image file is ${megabytes(size)}; upload one of at most ${megabytes(maxBytes)}.`,
    );
  }
  const meta = await readHeader(inputPath, maxPixels);
  const target = geometry(meta.autoOrient.width, meta.autoOrient.height, maxSide, opts.fill);
  let encoded: { data: Buffer; info: OutputInfo };
  try {
    // autoOrient before extract: sharp then crops in upright coordinates.
    const sharp = await loadSharp();
    let pipeline = sharp(inputPath, { limitInputPixels: maxPixels, failOn: "error" }).autoOrient();
    if (target.extract) pipeline = pipeline.extract(target.extract);
    encoded = await pipeline
      .resize({ width: target.width, height: target.height, fit: "fill" })
      .flatten({ background: "#000000" })
      .toColourspace("srgb")
      // Level 1: this file lives for a second; encoding speed matters more than its size.
      .png({ compressionLevel: 1, adaptiveFiltering: false })
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    if (err instanceof Error && /pixel limit/i.test(err.message)) {
      throw new ImageError("too_large", "The image has too many pixels; upload a smaller one.");
    }
    throw new ImageError(
      "not_image",
      "The image is damaged or incomplete; upload the original file again.",
    );
  }
  // Written separately so a full disk surfaces as a system error, not as the caller's fault.
  await writeFile(outputPath, encoded.data);
  return { width: encoded.info.width, height: encoded.info.height, format: meta.format };
}

/**
 * The heavy half of the image classifier: decoding with sharp and scoring with nsfwjs on tfjs.
 * Imported only when the first image is judged (see image-classifier.ts).
 */
import type * as tf from "@tensorflow/tfjs";
import { tensor3d, tidy } from "@tensorflow/tfjs";
import type { NSFWJS } from "nsfwjs/core";
import sharp from "sharp";
import { loadNsfwModel, NSFW_CLASS_NAMES, NSFW_INPUT_SIZE } from "./nsfw-model.js";

export const loadModel = loadNsfwModel;

/** Same pixel ceiling as the clip engine's image normaliser: a decompression bomb stops here. */
const MAX_INPUT_PIXELS = 40_000_000;

/**
 * Decodes any image sharp reads into the model's input: upright, flattened onto black (as the
 * clip engine does, so we judge what the clip will show), sRGB, squashed to 224×224 so no
 * part of the picture is cropped away, 3 bytes per pixel.
 */
export async function imageToModelInput(image: Buffer): Promise<Uint8Array> {
  const { data, info } = await sharp(image, {
    limitInputPixels: MAX_INPUT_PIXELS,
    failOn: "error",
  })
    .autoOrient()
    .flatten({ background: "#000000" })
    .toColourspace("srgb")
    .resize({ width: NSFW_INPUT_SIZE, height: NSFW_INPUT_SIZE, fit: "fill" })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** Runs the model on a decoded 224×224 RGB image and names the probabilities. */
export async function scoreRgb(model: NSFWJS, rgb: Uint8Array): Promise<Record<string, number>> {
  // cast: tf.tidy returns the TensorContainer the callback made: here the one tensor model.infer gives
  const probabilities = tidy(() =>
    model.infer(tensor3d(rgb, [NSFW_INPUT_SIZE, NSFW_INPUT_SIZE, 3], "int32")),
  ) as tf.Tensor;
  try {
    const values = await probabilities.data();
    return Object.fromEntries(NSFW_CLASS_NAMES.map((name, i) => [name, values[i] ?? 0]));
  } finally {
    probabilities.dispose();
  }
}

/**
 * The clip content rule applied to images, with nsfwjs's MobileNetV2 (5 classes: Drawing,
 * Hentai, Neutral, Porn, Sexy) on tfjs's wasm backend. Fully offline: the model ships inside
 * the nsfwjs package (see nsfw-model.ts).
 *
 * Thresholds (defaults; each a probability in (0, 1]):
 * - `sexual` when Porn ≥ pornThreshold (0.6), or Hentai ≥ hentaiThreshold (0.6), or
 *   Porn + Hentai ≥ the larger of the two thresholds: an explicit image whose probability is
 *   split between "photo" and "drawing" is still explicit.
 * - `nudity` when Sexy + Porn + Hentai ≥ sexyThreshold (0.9). Sexy is the model's class for
 *   nude and near-nude photos that are not pornographic, but also for swimwear and underwear,
 *   which the rule allows for adults; so it needs high confidence, and the explicit classes
 *   count towards it (an image the model is 90 % sure is not safe is refused).
 * - An image never yields `minor_safety`: the model cannot see age. Prompts carry that check.
 *
 * These defaults were chosen from the model's documented classes, not tuned on a labelled
 * photo set (none is available offline); operators can tune them through the options.
 */
import type { NSFWJS } from "nsfwjs/core";
import {
  INSTALL_OPTIONAL,
  isModuleNotFound,
  listInWords,
  MissingMediaError,
  unresolvable,
} from "../missing-packages.js";

/**
 * Why an image is refused: the content rule's codes this classifier can tell (the clip kind's
 * refusal codes include these; its executor hands them on as they are).
 */
export type ImageRefusalCode = "sexual" | "nudity";

interface ImageVerdict {
  allowed: boolean;
  /** Set when refused: `sexual` or `nudity`. */
  code?: ImageRefusalCode;
  /** Probability per model class: Drawing, Hentai, Neutral, Porn, Sexy (they sum to 1). */
  scores: Record<string, number>;
}

/** Judges whether an image may become a clip (the content rule for images). */
export interface ImageClassifier {
  /** Decodes and judges one image; rejects when the bytes are not a readable image. */
  classify(image: Buffer): Promise<ImageVerdict>;
  /** Loads whatever the first classify would (a model), ahead of it. */
  warm?(): Promise<void>;
  /** What this machine lacks to classify (sentences naming what to install); empty when ready. */
  unmetNeeds?(): string[];
}

/** The packages the nsfwjs classifier loads: optional dependencies of @kinora/server. */
const CLASSIFIER_PACKAGES = ["@tensorflow/tfjs", "@tensorflow/tfjs-backend-wasm", "nsfwjs"];

function missingClassifierPackages(packages: readonly string[]): string {
  return `The image check needs ${listInWords(packages)} (optional, not installed): run ${INSTALL_OPTIONAL}.`;
}

/** Why the nsfwjs classifier cannot load here (one sentence), or undefined when it can. */
export function classifierUnavailable(): string | undefined {
  const missing = unresolvable(CLASSIFIER_PACKAGES);
  return missing.length > 0 ? missingClassifierPackages(missing) : undefined;
}

interface NsfwThresholds {
  pornThreshold: number;
  hentaiThreshold: number;
  sexyThreshold: number;
}

export const DEFAULT_NSFW_THRESHOLDS: Readonly<NsfwThresholds> = {
  pornThreshold: 0.6,
  hentaiThreshold: 0.6,
  sexyThreshold: 0.9,
};

function validThresholds(opts: Partial<NsfwThresholds>): NsfwThresholds {
  const merged = { ...DEFAULT_NSFW_THRESHOLDS, ...opts };
  for (const [name, value] of Object.entries(merged)) {
    if (!(value > 0 && value <= 1)) {
      throw new RangeError(`${name} must be a probability above 0 and at most 1, got ${value}`);
    }
  }
  return merged;
}

/** Applies the thresholds to the model's scores. Pure, so the policy is testable alone. */
export function judgeScores(
  scores: Record<string, number>,
  thresholds: NsfwThresholds = DEFAULT_NSFW_THRESHOLDS,
): ImageVerdict {
  const porn = scores.Porn ?? 0;
  const hentai = scores.Hentai ?? 0;
  const sexy = scores.Sexy ?? 0;
  const { pornThreshold, hentaiThreshold, sexyThreshold } = thresholds;
  const explicit =
    porn >= pornThreshold ||
    hentai >= hentaiThreshold ||
    porn + hentai >= Math.max(pornThreshold, hentaiThreshold);
  if (explicit) return { allowed: false, code: "sexual", scores };
  if (sexy + porn + hentai >= sexyThreshold) return { allowed: false, code: "nudity", scores };
  return { allowed: true, scores };
}

/**
 * An ImageClassifier on nsfwjs. The model (≈ 0.3 s, ≈ 14 MB of memory) is loaded on the first
 * classify and shared by later calls; a failed load is retried by the next call.
 */
export function createNsfwjsClassifier(
  opts: Partial<NsfwThresholds> = {},
): Required<ImageClassifier> {
  const thresholds = validThresholds(opts);
  // tfjs and nsfwjs take seconds to load: only a process that judges an image pays for them.
  let model: Promise<{ nsfw: NSFWJS; scoring: typeof import("./nsfw-scoring.js") }> | undefined;
  const loaded = () => {
    model ??= (async () => {
      const scoring = await import("./nsfw-scoring.js").catch((err: unknown) => {
        // Installed without the optional packages: say which, not a resolver stack trace.
        if (!isModuleNotFound(err)) throw err;
        throw new MissingMediaError(
          classifierUnavailable() ?? missingClassifierPackages(CLASSIFIER_PACKAGES),
        );
      });
      return { nsfw: await scoring.loadModel(), scoring };
    })().catch((err: unknown) => {
      model = undefined;
      throw err;
    });
    return model;
  };
  return {
    async classify(image) {
      const { nsfw, scoring } = await loaded();
      const rgb = await scoring.imageToModelInput(image);
      return judgeScores(await scoring.scoreRgb(nsfw, rgb), thresholds);
    },
    /** Loads the model ahead of the first image (e.g. in the background after listening). */
    async warm() {
      await loaded();
    },
    unmetNeeds() {
      const reason = classifierUnavailable();
      return reason ? [reason] : [];
    },
  };
}

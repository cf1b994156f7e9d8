/** Which fade hints (domain/fade.ts) go with which quality. */
import type { FadeHint } from "../../../domain/fade.js";
import type { RestoreQuality } from "./pricing.js";

/**
 * Why `fade` cannot go with `quality`, or null when it can: Standard never changes levels, so
 * saying the tape is (or is not) faded would buy nothing and is refused rather than ignored.
 */
export function fadeProblem(fade: FadeHint, quality: RestoreQuality): string | null {
  if (fade === "auto" || quality !== "faithful") return null;
  return `cannot be '${fade}' with quality faithful (Standard never changes levels): choose enhanced or enhanced_max, or leave fade out.`;
}

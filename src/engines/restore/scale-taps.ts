/**
 * The upscale's kernel (a plan decision, pure): see decideScaleTaps.
 */
import { LIMITS } from "./limits.js";
import type { RestoreQuality, VideoPlan } from "./types.js";

/**
 * Studio Max enlarges a picture it neither denoised, deblocked nor sharpened (`filtered` false)
 * with a wider lanczos (LIMITS.studioMaxLanczosTaps): it passes more of the finest detail, which
 * clean pictures have; a denoised or deblocked one would keep the filters' leftovers, and on a
 * sharpened one it added to the mask's overshoot. `quality` is the one the picture is sized as
 * (sizeQuality: a blocked one delivered as at Enhanced is enlarged as at Enhanced).
 */
export function decideScaleTaps(
  quality: RestoreQuality,
  scale: VideoPlan["scale"],
  filtered: boolean,
  notes: string[],
): VideoPlan["scale"] {
  if (!scale || quality !== "enhanced_max" || filtered) return scale;
  notes.push(
    `enlarged with lanczos of ${LIMITS.studioMaxLanczosTaps} taps (picture left as it came)`,
  );
  return { ...scale, taps: LIMITS.studioMaxLanczosTaps };
}

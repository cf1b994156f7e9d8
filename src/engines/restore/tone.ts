/**
 * Whether a picture is faded, and how to give it its contrast back (enhanced qualities), from its
 * levels (levels.ts). A fade lays a veil over every channel: the dark channel (the darkest of
 * R, G and B, at its 0.5th percentile) lifts, even where the colour is saturated, and the whites
 * sink. A natural scene keeps a dark channel near zero — shade, or a saturated colour — unless
 * haze veils it on purpose, and haze is grey or pale: a grey picture needs a much heavier veil to
 * count as faded, a colourful one a veil and dimmed whites together (both ends), or a veil
 * heavier than any clean scene showed. A veil heavier
 * than any fade is a bright scene (pale wood, snow), not a fade. Where grain made the levels be
 * read from wide means, only part of the stretch is made (fadeWideShare). Pure.
 */
import { LIMITS } from "./limits.js";
import type { FadeHint, Measurements, VideoPlan } from "./types.js";

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The fade test (see the header): the veil (dark channel) and the whites (bright channel). */
export function isFaded(levels: NonNullable<Measurements["levels"]>): boolean {
  const { dark, bright, sat } = levels;
  if (dark > LIMITS.fadeVeilMax) return false;
  if (sat < LIMITS.greySat) return dark >= LIMITS.fadeVeilGrey;
  if (dark >= LIMITS.fadeVeilAlone) return true;
  return dark >= LIMITS.fadeVeil && bright <= LIMITS.fadeWhitesBelow;
}

/**
 * Contrast and saturation from measured levels (enhanced qualities only), and only for a faded
 * picture: the veil is taken off (the dark channel back to black) and the range stretched to
 * what an unfaded picture spans (LIMITS.fadeTargetRange), never by more than maxLevelsGain;
 * colour gets the same gain (the inverse of a veil scales every channel alike). Black and white
 * loses its chroma noise. The customer's `fade` overrules the fade test, not the stretch: told
 * "faded", the same stretch is made from the same reading (a picture already spanning the range
 * still gets none); told "not_faded", none is made.
 */
export function decideTone(
  levels: Measurements["levels"],
  notes: string[],
  fade: FadeHint = "auto",
): Pick<VideoPlan, "levels" | "saturation"> {
  if (!levels) return { levels: null, saturation: null };
  let tone: VideoPlan["levels"] = null;
  // The colour's gain: the whole stretch's, even where only a share of it is made (below).
  let colourGain = 1;
  const faded = fade === "auto" ? isFaded(levels) : fade === "faded";
  if (faded) {
    const span = Math.max(1, levels.bright - levels.dark);
    const full = Math.min(LIMITS.maxLevelsGain, LIMITS.fadeTargetRange / span);
    // The veil in luma codes: the dark channel's RGB level, back on the BT.601/709 luma scale.
    const black = 16 + levels.dark / 1.164;
    // Wide means misread a scene's own ends (they lift its dark details, and tape's blur and
    // colour bleed lift them further), so the veil they read is less sure: only
    // fadeWideShare of the stretch is made (limits.ts).
    const share = levels.wide ? LIMITS.fadeWideShare : 1;
    const gain = 1 + share * (full - 1);
    const to = black + share * (16 - black);
    // y' = to + (y − black) × gain, written as a pivot (the code that stays where it is).
    const pivot = (black * gain - to) / (gain - 1);
    if (gain >= 1.05) tone = { gain: round3(gain), pivot: round3(pivot) };
    colourGain = full;
  }
  let saturation: number | null = null;
  if (levels.sat < LIMITS.monochromeSat) saturation = 0;
  else if (tone) saturation = round3(Math.min(LIMITS.maxSaturation, colourGain));
  const read = `levels: dark ${levels.dark}, bright ${levels.bright}, luma ${levels.yLow}–${levels.yHigh}, colour ${levels.sat}`;
  const told = fade === "auto" ? "" : "told ";
  const verdict = tone
    ? levels.wide
      ? `${told}faded (read through grain): part of the veil off, stretch ×${tone.gain}`
      : `${told}faded: veil off, stretch ×${tone.gain}`
    : faded
      ? `${told}faded, but less than 5 %: left`
      : `${told}not faded: no stretch`;
  const colour =
    saturation === null
      ? "colour kept"
      : saturation === 0
        ? "black-and-white"
        : `saturation ×${saturation}`;
  notes.push(`${read} → ${verdict}, ${colour}`);
  return { levels: tone, saturation };
}

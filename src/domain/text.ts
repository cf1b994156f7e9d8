/** Text rules shared by every surface. */

/** Drops control characters (C0 and DEL) from text a person typed or an app declared. */
export function withoutControlChars(text: string): string {
  return Array.from(text)
    .filter((ch) => ch >= " " && ch !== "\x7f")
    .join("");
}

// Characters that change how text around them reads without showing themselves: controls,
// format characters (bidirectional overrides and isolates, zero-width joiners and spaces, the
// BOM, tag characters), line and paragraph separators, private-use characters, and the Hangul
// fillers and braille blank that render as nothing.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\u115F\u1160\u3164\uFFA0\u2800]/gu;

/**
 * A name an app gives itself, made inert: invisible and format characters (bidi controls
 * included) dropped, runs of spaces collapsed, trimmed, and capped at `max` characters. Pages
 * still show it inside <bdi> so it cannot reorder the sentence around it.
 */
export function inertName(text: string, max: number): string {
  const plain = text.replace(INVISIBLE, "").replace(/\s+/gu, " ").trim();
  return Array.from(plain).slice(0, max).join("");
}

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

/** The dotted path of the first string (or object key) holding a NUL, or null. */
export function findNul(value: unknown, at = ""): string | null {
  if (typeof value === "string") return value.includes("\0") ? at || "body" : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], `${at}${at ? "." : ""}${i}`);
      if (hit) return hit;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const field = `${at}${at ? "." : ""}${k}`;
      if (k.includes("\0")) return field;
      const hit = findNul(v, field);
      if (hit) return hit;
    }
  }
  return null;
}

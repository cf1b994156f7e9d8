/** Text rules shared by every surface. */

/** Drops control characters (C0 and DEL) from text a person typed or an app declared. */
export function withoutControlChars(text: string): string {
  return Array.from(text)
    .filter((ch) => ch >= " " && ch !== "\x7f")
    .join("");
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

/** Text rules shared by every surface. */

/** Drops control characters (C0 and DEL) from text a person typed or an app declared. */
export function withoutControlChars(text: string): string {
  return Array.from(text)
    .filter((ch) => ch >= " " && ch !== "\x7f")
    .join("");
}

/**
 * Bidirectional control characters — the twelve of Unicode's Bidi_Control property: the
 * embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E, U+200F
 * and U+061C. They change the order in which the text around them is displayed without showing
 * themselves: "\u202Egnp.exe" reads "exe.png". kinora refuses them in everything a caller sends
 * (a 400 naming the field), rather than isolating them where they are shown: the strings leave
 * kinora's pages — the `kinora` client prints them in a terminal, an assistant repeats them, a
 * webhook carries them to another dashboard — and isolation (<bdi>, FSI…PDI) only keeps an
 * override from reordering the text *around* it, not the string itself. Refused at the door,
 * no surface has to remember. Text in the right-to-left scripts needs none of them: its letters
 * carry their own direction.
 */
import { at as entryAt } from "./checked-index.js";

const BIDI_CONTROL = /\p{Bidi_Control}/u;
const BIDI_CONTROLS = /\p{Bidi_Control}/gu;

/** The first bidirectional control character in `text` as "U+202E", or null. */
export function bidiControlIn(text: string): string | null {
  const m = BIDI_CONTROL.exec(text);
  if (!m) return null;
  return `U+${(m[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** `text` without its bidirectional controls (for rows stored before they were refused). */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

/**
 * The dotted path of the first string (or object key) in `value` holding a bidirectional
 * control, with the character, or null. Walks without recursion, so no nesting is too deep.
 */
export function findBidiControl(value: unknown): { at: string; char: string } | null {
  const stack: [unknown, string][] = [[value, ""]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, at] = top;
    if (typeof v === "string") {
      const char = bidiControlIn(v);
      if (char) return { at: at || "body", char };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}${at ? "." : ""}${i}`]);
    } else if (v && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entryAt(entries, i);
        const field = `${at}${at ? "." : ""}${k}`;
        const char = bidiControlIn(k);
        if (char) return { at: field, char };
        stack.push([child, field]);
      }
    }
  }
  return null;
}

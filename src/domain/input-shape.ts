/**
 * Caller input checked as a whole before any schema reads it, the same on every surface: no
 * NUL character in a string or a key (PostgreSQL text cannot hold one), and no nesting deeper
 * than INPUT_MAX_DEPTH. One iterative walk with its own stack: a recursive one overflows the
 * call stack on a few thousand levels of `[[[[…` (an 8 KB body), which answered 500.
 */
import { at as entryAt } from "./checked-index.js";
import { INPUT_MAX_DEPTH } from "./limits.js";

/** What is wrong with an input as a whole: a NUL (and where), or too deep. */
export type InputFault = { kind: "nul"; field: string } | { kind: "depth"; maxDepth: number };

interface Frame {
  value: unknown;
  /** The dotted path of the value ("" for the input itself). */
  at: string;
  /** Containers from the top down to and including this value's. */
  depth: number;
  /** The key that leads here holds a NUL. */
  nulKey: boolean;
}

/**
 * The first fault of `value` in document order (a string or key holding a NUL, or an object or
 * array more than `maxDepth` levels down), or null. Objects and arrays count as levels: `{}` is
 * one, `{"a": []}` two.
 */
export function inputFault(value: unknown, maxDepth = INPUT_MAX_DEPTH): InputFault | null {
  const stack: Frame[] = [{ value, at: "", depth: 1, nulKey: false }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { value: v, at, depth } = frame;
    if (frame.nulKey) return { kind: "nul", field: at };
    if (typeof v === "string") {
      if (v.includes("\0")) return { kind: "nul", field: at || "body" };
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth > maxDepth) return { kind: "depth", maxDepth };
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((item, i) => [String(i), item])
      : Object.entries(v);
    // Pushed last to first, so the first entry is looked at first.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entryAt(entries, i);
      const path = at ? `${at}.${key}` : key;
      stack.push({ value: item, at: path, depth: depth + 1, nulKey: key.includes("\0") });
    }
  }
  return null;
}

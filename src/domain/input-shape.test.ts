import { describe, expect, it } from "vitest";
import { inputFault } from "./input-shape.js";

/** `depth` arrays within each other, built without recursion. */
function nestedArrays(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

describe("inputFault", () => {
  it("finds a NUL in a string or a key, naming the first in document order", () => {
    expect(inputFault("a\u0000b")).toEqual({ kind: "nul", field: "body" });
    expect(inputFault({ a: "ok", b: ["x", "y\u0000"], c: "\u0000" })).toEqual({
      kind: "nul",
      field: "b.1",
    });
    expect(inputFault({ a: { "k\u0000": 1 }, b: "\u0000" })).toEqual({
      kind: "nul",
      field: "a.k\u0000",
    });
    expect(inputFault({ a: 1, b: [true, null, 2.5], c: { d: "fine" } })).toBeNull();
    expect(inputFault(undefined)).toBeNull();
  });

  it("counts objects and arrays as levels: 64 pass, 65 are refused", () => {
    expect(inputFault(nestedArrays(64))).toBeNull();
    expect(inputFault(nestedArrays(65))).toEqual({ kind: "depth", maxDepth: 64 });
    expect(inputFault({ a: { b: [] } }, 3)).toBeNull();
    expect(inputFault({ a: { b: [] } }, 2)).toEqual({ kind: "depth", maxDepth: 2 });
    // Strings and numbers are not levels.
    expect(inputFault({ a: "x" }, 1)).toBeNull();
  });

  it("walks 100,000 levels and a 50,000-item array without overflowing the stack", () => {
    expect(inputFault(nestedArrays(100_000))).toEqual({ kind: "depth", maxDepth: 64 });
    const wide = Array.from({ length: 50_000 }, (_, i) => ({ i: String(i) }));
    expect(inputFault(wide)).toBeNull();
    wide.push({ i: "\u0000" });
    expect(inputFault(wide)).toEqual({ kind: "nul", field: "50000.i" });
  });

  it("reports whichever it meets first: a NUL before the deep part, or the depth", () => {
    expect(inputFault({ a: "\u0000", b: nestedArrays(100) })).toEqual({ kind: "nul", field: "a" });
    expect(inputFault({ a: nestedArrays(100), b: "\u0000" })).toEqual({
      kind: "depth",
      maxDepth: 64,
    });
  });
});

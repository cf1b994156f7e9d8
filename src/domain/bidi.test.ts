import { describe, expect, it } from "vitest";
import { bidiControlIn, findBidiControl, withoutBidiControls } from "./bidi.js";

const ALL = "\u061C\u200E\u200F\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069";

describe("bidirectional controls", () => {
  it("finds each of the twelve, and names it", () => {
    const named = Array.from(ALL, (ch) => bidiControlIn(`a${ch}b`));
    expect(named).toEqual(
      [
        "061C",
        "200E",
        "200F",
        "202A",
        "202B",
        "202C",
        "202D",
        "202E",
        "2066",
        "2067",
        "2068",
        "2069",
      ].map((hex) => `U+${hex}`),
    );
    expect(bidiControlIn("\u202Egnp.exe")).toBe("U+202E");
  });

  it("leaves right-to-left text, emoji sequences and other characters alone", () => {
    for (const text of ["שלום עולם", "مرحبا", "👨‍👩‍👧 family", "naïve café", "tab\there"]) {
      expect(bidiControlIn(text), text).toBeNull();
    }
  });

  it("names the first field holding one, keys and array items included, however deep", () => {
    expect(findBidiControl({ label: "ok", description: "x\u202Ey" })).toEqual({
      at: "description",
      char: "U+202E",
    });
    expect(findBidiControl({ events: ["a", "b\u2067"] })).toEqual({
      at: "events.1",
      char: "U+2067",
    });
    expect(findBidiControl({ "k\u200F": 1 })).toEqual({ at: "k\u200F", char: "U+200F" });
    expect(findBidiControl("\u061C")).toEqual({ at: "body", char: "U+061C" });
    expect(findBidiControl({ a: 1, b: true, c: null, d: ["x"] })).toBeNull();
    let deep: unknown = "x\u202Dy";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findBidiControl(deep)?.char).toBe("U+202D");
  });

  it("strips them from text stored before they were refused", () => {
    expect(withoutBidiControls(`\u202Egnp.exe\u202C${ALL}`)).toBe("gnp.exe");
  });
});

import { describe, expect, it } from "vitest";
import { decideRange, ifRangeMatches } from "./http-range.js";

describe("single byte ranges", () => {
  it.each([
    [undefined, 100, { kind: "full" }],
    ["bytes=0-9", 100, { kind: "partial", start: 0, end: 9 }],
    ["bytes=90-", 100, { kind: "partial", start: 90, end: 99 }],
    ["bytes=90-500", 100, { kind: "partial", start: 90, end: 99 }],
    ["bytes=-10", 100, { kind: "partial", start: 90, end: 99 }],
    ["bytes=-500", 100, { kind: "partial", start: 0, end: 99 }],
    ["bytes=100-", 100, { kind: "unsatisfiable" }],
    ["bytes=-0", 100, { kind: "unsatisfiable" }],
    ["bytes=0-", 0, { kind: "unsatisfiable" }],
    ["bytes=5-1", 100, { kind: "full" }],
    ["bytes=0-1,5-6", 100, { kind: "full" }],
    ["items=0-1", 100, { kind: "full" }],
    ["bytes=-", 100, { kind: "full" }],
  ] as const)("%s of %i bytes", (header, size, expected) => {
    expect(decideRange(header, size)).toEqual(expected);
  });

  it("serves the whole file when If-Range names another version", () => {
    const modified = new Date("2026-11-01T10:00:00.500Z");
    expect(ifRangeMatches(undefined, '"a"', modified)).toBe(true);
    expect(ifRangeMatches('"a"', '"a"', modified)).toBe(true);
    expect(ifRangeMatches('"b"', '"a"', modified)).toBe(false);
    expect(ifRangeMatches('W/"a"', '"a"', modified)).toBe(false);
    expect(ifRangeMatches(modified.toUTCString(), '"a"', modified)).toBe(true);
    expect(ifRangeMatches("Sun, 01 Nov 2026 09:00:00 GMT", '"a"', modified)).toBe(false);
    expect(decideRange("bytes=0-1", 10, false)).toEqual({ kind: "full" });
  });
});

import { describe, expect, it } from "vitest";
import { isRecord, recordOf, recordsOf } from "./records.js";

describe("JSON record guards", () => {
  it("take plain objects and nothing else for records", () => {
    expect(isRecord({ a: 1 })).toBe(true);
    expect(isRecord(null)).toBe(false);
    expect(isRecord([1])).toBe(false);
    expect(isRecord("x")).toBe(false);
  });

  it("read a missing or malformed section as empty", () => {
    expect(recordOf({ a: 1 })).toEqual({ a: 1 });
    expect(recordOf(undefined)).toEqual({});
    expect(recordOf(7)).toEqual({});
  });

  it("keep only the objects of an array", () => {
    expect(recordsOf([{ a: 1 }, null, 3, { b: 2 }])).toEqual([{ a: 1 }, { b: 2 }]);
    expect(recordsOf({ a: 1 })).toEqual([]);
  });
});

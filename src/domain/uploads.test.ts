import { describe, expect, it } from "vitest";
import { describeParts } from "./uploads.js";

describe("describeParts", () => {
  it("writes consecutive part numbers as ranges", () => {
    expect(describeParts([2, 4, 5])).toBe("2, 4–5");
    expect(describeParts([1, 3, 5])).toBe("1, 3, 5");
    expect(describeParts([])).toBe("");
  });

  it("gives a whole upload missing as one range, not thousands of numbers", () => {
    const all = Array.from({ length: 9347 }, (_, i) => i + 1);
    expect(describeParts(all)).toBe("1–9347");
    expect(describeParts(all.filter((n) => n !== 700))).toBe("1–699, 701–9347");
  });

  it("shows the first ranges at most, then how many parts more", () => {
    const everyOther = Array.from({ length: 30 }, (_, i) => 2 * i + 1);
    expect(describeParts(everyOther, 3)).toBe("1, 3, 5 and 27 more parts");
    expect(describeParts([1, 2, 3, 7, 8], 1)).toBe("1–3 and 2 more parts");
    expect(describeParts([1, 5], 1)).toBe("1 and 1 more part");
    expect(describeParts(everyOther, Number.POSITIVE_INFINITY).split(", ")).toHaveLength(30);
  });
});

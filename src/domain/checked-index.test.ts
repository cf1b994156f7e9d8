import { describe, expect, it } from "vitest";
import { at, byteAt, f32At, f64At, last } from "./checked-index.js";

describe("checked element reads", () => {
  it("return the element at an index in range", () => {
    expect(at(["a", "b"], 1)).toBe("b");
    expect(last([3, 4, 5])).toBe(5);
    expect(byteAt(Uint8Array.of(7, 9), 0)).toBe(7);
    expect(f64At(Float64Array.of(0.5, 1.5), 1)).toBe(1.5);
    expect(f32At(Float32Array.of(2), 0)).toBe(2);
  });

  it("throw a RangeError naming the index and length out of range", () => {
    expect(() => at([1, 2], 2)).toThrow("index 2 is out of range (length 2)");
    expect(() => at([1, 2], -1)).toThrow(RangeError);
    expect(() => last([])).toThrow("index -1 is out of range (length 0)");
    expect(() => byteAt(new Uint8Array(3), 3)).toThrow(RangeError);
    expect(() => f64At(new Float64Array(1), 1.5)).toThrow(RangeError);
    expect(() => f32At(new Float32Array(0), 0)).toThrow(RangeError);
  });

  it("keep a falsy element (0, empty string, null)", () => {
    expect(at([0], 0)).toBe(0);
    expect(at([""], 0)).toBe("");
    expect(at([null], 0)).toBeNull();
    expect(byteAt(new Uint8Array(1), 0)).toBe(0);
  });
});

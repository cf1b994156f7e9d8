import { describe, expect, it } from "vitest";
import {
  assertValidKey,
  clipImageKey,
  clipOutputKey,
  InvalidKeyError,
  isValidKey,
  MAX_KEY_LENGTH,
  restoreInputKey,
  restoreOutputKey,
} from "./keys.js";

describe("storage keys", () => {
  it("builds one key per file of a job or clip", () => {
    expect(restoreInputKey("rj_abc")).toBe("restore/rj_abc/input");
    expect(restoreOutputKey("rj_abc")).toBe("restore/rj_abc/output");
    expect(clipImageKey("clip_9Z")).toBe("clips/clip_9Z/image");
    expect(clipOutputKey("clip_9Z")).toBe("clips/clip_9Z/output");
  });

  it("refuses ids of the wrong kind or with path characters", () => {
    for (const bad of ["clip_1", "rj_", "rj_../x", "rj_a/b", "rj_a b", ""]) {
      expect(() => restoreInputKey(bad)).toThrow(InvalidKeyError);
    }
    expect(() => clipImageKey("rj_1")).toThrow(InvalidKeyError);
  });

  it("accepts path-like keys and refuses traversal, absolute paths and hidden segments", () => {
    expect(isValidKey("restore/rj_x/input")).toBe(true);
    expect(isValidKey("a.b-c_d/e")).toBe(true);
    for (const bad of [
      "",
      "/a",
      "a/",
      "a//b",
      "..",
      "a/../b",
      "./a",
      ".a",
      "a/.b",
      "a\\b",
      "a b",
      "a\0b",
      "é",
    ]) {
      expect(isValidKey(bad), bad).toBe(false);
    }
    expect(isValidKey(`${"a/".repeat(8)}a`)).toBe(false);
    expect(isValidKey(`${"a".repeat(128)}/b`)).toBe(true);
    expect(isValidKey(`${"a".repeat(129)}/b`)).toBe(false);
    expect(MAX_KEY_LENGTH).toBeGreaterThan(100);
    expect(() => assertValidKey("../etc/passwd")).toThrow(/invalid storage key/);
  });
});

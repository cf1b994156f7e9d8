import { describe, expect, it } from "vitest";
import {
  assertValidKey,
  InvalidKeyError,
  isValidKey,
  type JobFileLayout,
  jobFileKey,
  MAX_KEY_LENGTH,
  parseJobFileKey,
} from "./keys.js";

const JOBS: JobFileLayout = {
  area: "jobs",
  idPattern: /^j_[A-Za-z0-9_-]{1,100}$/,
  files: ["in", "out"],
};
const OTHER: JobFileLayout = { area: "other", idPattern: /^o_[A-Za-z0-9]{1,9}$/, files: ["in"] };

describe("storage keys", () => {
  it("builds one key per file of a job, from the kind's layout", () => {
    expect(jobFileKey(JOBS, "j_abc", "in")).toBe("jobs/j_abc/in");
    expect(jobFileKey(JOBS, "j_abc", "out")).toBe("jobs/j_abc/out");
  });

  it("refuses ids of another kind or with path characters, and files the kind does not have", () => {
    for (const bad of ["o_1", "j_", "j_../x", "j_a/b", "j_a b", ""]) {
      expect(() => jobFileKey(JOBS, bad, "in")).toThrow(InvalidKeyError);
    }
    expect(() => jobFileKey(JOBS, "j_1", "image")).toThrow(InvalidKeyError);
  });

  it("parses a key back to its layout, id and file; anything else is null", () => {
    const layouts = [JOBS, OTHER];
    expect(parseJobFileKey("jobs/j_abc/out", layouts)).toEqual({
      layout: JOBS,
      id: "j_abc",
      file: "out",
    });
    expect(parseJobFileKey("other/o_1/in", layouts)?.layout).toBe(OTHER);
    for (const bad of [
      "other/o_1/out",
      "jobs/o_1/in",
      "nope/j_1/in",
      "jobs/j_1",
      "jobs/j_1/in/x",
    ]) {
      expect(parseJobFileKey(bad, layouts), bad).toBeNull();
    }
    expect(parseJobFileKey("jobs/j_1/in", [OTHER])).toBeNull();
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

import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";
import { RESTORE_LIMIT_CEILINGS } from "./kinds/restore/rules/limits.js";

const MIB = 1024 ** 2;

describe("upload and restore-limit settings", () => {
  it("default to one PUT up to 256 MiB, parts of 64 MiB, 6 hours and 50 GiB", () => {
    const c = loadConfig({});
    expect(c.uploads).toEqual({
      singleMaxBytes: 256 * MIB,
      partBytes: 64 * MIB,
      partChecksum: "crc32",
      heapGrowingPercent: 200,
    });
    expect(c.restoreLimits).toEqual({ maxDurationSec: 6 * 3600, maxSizeBytes: 50 * 1024 ** 3 });
  });

  it("read sizes in bytes or with a unit", () => {
    const c = loadConfig({
      UPLOAD_SINGLE_MAX_BYTES: "100MB",
      UPLOAD_PART_BYTES: "8 MiB",
      RESTORE_MAX_SIZE_BYTES: "2199023255552",
    });
    expect(c.uploads).toEqual({
      singleMaxBytes: 100_000_000,
      partBytes: 8 * MIB,
      partChecksum: "crc32",
      heapGrowingPercent: 200,
    });
    expect(c.restoreLimits.maxSizeBytes).toBe(2 * 1024 ** 4);
  });

  it("refuse a bad size naming the setting and the range", () => {
    for (const [name, value] of [
      ["UPLOAD_PART_BYTES", "64 potatoes"],
      ["UPLOAD_PART_BYTES", "6GiB"],
      ["UPLOAD_SINGLE_MAX_BYTES", "1MiB"],
      ["RESTORE_MAX_SIZE_BYTES", "-5"],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(
        new RegExp(`${name}: must be a size from`),
      );
    }
    expect(() => loadConfig({ RESTORE_MAX_DURATION_SEC: String(49 * 3600) })).toThrow(
      /RESTORE_MAX_DURATION_SEC/,
    );
  });

  it("read an API node's heap growing factor as a whole percentage, 0 for V8's own", () => {
    expect(loadConfig({ UPLOAD_HEAP_GROWING_PERCENT: "0" }).uploads.heapGrowingPercent).toBe(0);
    expect(loadConfig({ UPLOAD_HEAP_GROWING_PERCENT: "100" }).uploads.heapGrowingPercent).toBe(100);
    for (const value of ["-1", "1001", "lots", "1.5"]) {
      expect(() => loadConfig({ UPLOAD_HEAP_GROWING_PERCENT: value }), value).toThrow(
        /UPLOAD_HEAP_GROWING_PERCENT/,
      );
    }
  });

  it("refuse parts under 5 MiB on S3, which refuses them too", () => {
    const s3 = { STORAGE: "s3", S3_BUCKET: "bucket", UPLOAD_PART_BYTES: "4MiB" };
    expect(() => loadConfig(s3)).toThrow(ConfigError);
    expect(() => loadConfig(s3)).toThrow(/UPLOAD_PART_BYTES: must be at least 5 MiB/);
    expect(loadConfig({ UPLOAD_PART_BYTES: "4MiB" }).uploads.partBytes).toBe(4 * MIB);
  });

  it("allow the restore limits up to the restore kind's ceilings and no further", () => {
    const c = loadConfig({
      RESTORE_MAX_DURATION_SEC: String(RESTORE_LIMIT_CEILINGS.maxDurationSec),
      RESTORE_MAX_SIZE_BYTES: String(RESTORE_LIMIT_CEILINGS.maxSizeBytes),
    });
    expect(c.restoreLimits).toEqual(RESTORE_LIMIT_CEILINGS);
    expect(() =>
      loadConfig({ RESTORE_MAX_SIZE_BYTES: String(RESTORE_LIMIT_CEILINGS.maxSizeBytes + 1) }),
    ).toThrow(/RESTORE_MAX_SIZE_BYTES/);
  });
});

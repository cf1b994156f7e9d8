import { describe, expect, it } from "vitest";
import { DEFAULT_UPLOAD_HEAP_GROWING_PERCENT } from "../config/storage.js";
import { giveHeapHeadroomForUploads } from "./heap-headroom.js";

describe("heap headroom for uploads", () => {
  it("leaves a factor node was started with alone, in either spelling", () => {
    expect(giveHeapHeadroomForUploads(200, ["--heap-growing-percent=50"])).toBe(false);
    expect(giveHeapHeadroomForUploads(200, ["--heap_growing_percent=80"])).toBe(false);
  });

  it("leaves V8 to choose when the setting is 0", () => {
    expect(giveHeapHeadroomForUploads(0, [])).toBe(false);
  });

  it("sets the setting's factor otherwise", () => {
    expect(
      giveHeapHeadroomForUploads(DEFAULT_UPLOAD_HEAP_GROWING_PERCENT, ["--enable-source-maps"]),
    ).toBe(true);
  });
});

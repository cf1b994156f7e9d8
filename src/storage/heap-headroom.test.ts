import { describe, expect, it } from "vitest";
import { giveHeapHeadroomForUploads } from "./heap-headroom.js";

describe("heap headroom for uploads", () => {
  it("leaves an operator's own growing factor alone, in the arguments or NODE_OPTIONS", () => {
    expect(giveHeapHeadroomForUploads(["--heap-growing-percent=50"], "")).toBe(false);
    expect(
      giveHeapHeadroomForUploads([], "--max-old-space-size=512 --heap_growing_percent=80"),
    ).toBe(false);
  });

  it("sets it otherwise", () => {
    expect(giveHeapHeadroomForUploads(["--enable-source-maps"], "--max-old-space-size=512")).toBe(
      true,
    );
  });
});

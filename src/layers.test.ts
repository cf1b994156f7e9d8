/** The layer rule holds over src/: see scripts/check-layers.mjs and docs/architecture.md. */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script without type declarations
import { checkLayers, layerOf } from "../scripts/check-layers.mjs";

describe("layers", () => {
  it("every import points down a layer, no surface imports another, and there is no cycle", () => {
    expect(checkLayers()).toEqual([]);
  });

  it("places modules in the layers the architecture names", () => {
    expect(layerOf("domain/money.ts")).toEqual({ level: 0, group: "domain" });
    expect(layerOf("db/schema.ts")?.level).toBe(1);
    expect(layerOf("services/ledger.ts")?.level).toBe(2);
    expect(layerOf("mcp/server.ts")).toEqual({ level: 3, group: "mcp" });
    expect(layerOf("web/layout.tsx")).toEqual({ level: 3, group: "http" });
    expect(layerOf("features/mcp.ts")?.level).toBe(4);
    expect(layerOf("unknown.ts")).toBeUndefined();
  });
});

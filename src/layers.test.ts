/** The layer rule holds over src/: see scripts/check-layers.mjs and docs/architecture.md. */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script without type declarations
import { checkLayers, checkPackages, layerOf, mutualFolders } from "../scripts/check-layers.mjs";

describe("layers", () => {
  it("every import points down a layer, no surface imports another, no cycle, no mutual folders", () => {
    expect(checkLayers()).toEqual([]);
  });

  it("keeps each published package (packages/*) to itself and the packages it names", () => {
    expect(checkPackages()).toEqual([]);
  });

  it("places modules in the layers the architecture names", () => {
    expect(layerOf("domain/money.ts")).toEqual({ level: 0, group: "domain" });
    expect(layerOf("db/schema.ts")?.level).toBe(1);
    expect(layerOf("services/ledger.ts")?.level).toBe(2);
    expect(layerOf("mcp/server.ts")).toEqual({ level: 3, group: "mcp" });
    expect(layerOf("web/layout.tsx")).toEqual({ level: 3, group: "http" });
    expect(layerOf("features/mcp.ts")?.level).toBe(4);
    expect(layerOf("job-kinds.ts")?.level).toBe(4);
    expect(layerOf("unknown.ts")).toBeUndefined();
  });

  it("places a kind's files (kinds/<kind>/) in the layers of their roles", () => {
    expect(layerOf("kinds/restore/rules/pricing.ts")).toEqual({ level: 0, group: "domain" });
    expect(layerOf("kinds/restore/api/contracts.ts")?.level).toBe(1);
    expect(layerOf("kinds/restore/services/create.ts")?.level).toBe(2);
    expect(layerOf("kinds/restore/operations.ts")?.level).toBe(2);
    expect(layerOf("kinds/clips/executor/executor.ts")).toEqual({ level: 3, group: "workers" });
    expect(layerOf("kinds/clips/kind.ts")?.level).toBe(4);
    expect(layerOf("kinds/clips/stray.ts")).toBeUndefined();
  });

  it("refuses two folders that import each other, naming the imports both ways", () => {
    // What jobs/ and services/ did before the kind definitions moved into services/.
    const graph = new Map<string, string[]>([
      ["jobs/restore.ts", ["services/ledger.ts", "jobs/definition.ts"]],
      ["jobs/definition.ts", []],
      ["services/ledger.ts", []],
      ["services/restore/store.ts", ["jobs/restore.ts", "services/ledger.ts"]],
      ["domain/money.ts", []],
      ["services/wallets.ts", ["domain/money.ts"]],
      // Modules directly in src/ belong to no folder: they are checked one by one.
      ["feature.ts", ["jobs/definition.ts"]],
      ["jobs/work.ts", ["logger.ts"]],
    ]);
    expect(mutualFolders(graph)).toEqual([
      "folders import each other: jobs/ and services/ (jobs/restore.ts → services/ledger.ts; and back: services/restore/store.ts → jobs/restore.ts)",
    ]);
    graph.set("jobs/restore.ts", ["jobs/definition.ts"]);
    expect(mutualFolders(graph)).toEqual([]);
  });
});

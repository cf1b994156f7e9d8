/** The layer rule holds over src/: see scripts/check-layers.mjs and docs/architecture.md. */
import { describe, expect, it } from "vitest";
import {
  checkLayers,
  checkPackages,
  kindReachProblem,
  layerOf,
  mutualFolders,
  packageStructure,
  // @ts-expect-error: a plain ES module script without type declarations
} from "../scripts/check-layers.mjs";

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
      // A module directly in src/ is a unit of its own: this pair goes one way only.
      ["feature.ts", ["jobs/definition.ts"]],
      ["jobs/work.ts", ["logger.ts"]],
    ]);
    expect(mutualFolders(graph)).toEqual([
      "folders import each other: jobs/ and services/ (jobs/restore.ts → services/ledger.ts; and back: services/restore/store.ts → jobs/restore.ts)",
    ]);
    graph.set("jobs/restore.ts", ["jobs/definition.ts"]);
    expect(mutualFolders(graph)).toEqual([]);
  });

  it("refuses a loop between a folder and a module directly in src/ (features/ ↔ job-kinds.ts)", () => {
    const graph = new Map<string, string[]>([
      ["job-kinds.ts", ["kinds/restore/kind.ts"]],
      ["kinds/restore/kind.ts", []],
      ["features/metrics.ts", ["job-kinds.ts"]],
      ["features.ts", ["features/metrics.ts"]],
    ]);
    expect(mutualFolders(graph)).toEqual([]);
    graph.set("job-kinds.ts", ["kinds/restore/kind.ts", "features/payments.ts"]);
    expect(mutualFolders(graph)).toEqual([
      "folders import each other: features/ and job-kinds.ts (features/metrics.ts → job-kinds.ts; and back: job-kinds.ts → features/payments.ts)",
    ]);
  });

  it("lets only composition reach a kind, and only through its kind.ts", () => {
    const kind = (inner: string) => ({ kind: "restore", inner });
    const at = (file: string) => layerOf(file);
    expect(
      kindReachProblem(
        "services/payments/deps.ts",
        at("services/payments/deps.ts"),
        "kinds/restore/services/deps.ts",
        kind("services/deps.ts"),
      ),
    ).toMatch(/only composition reaches a kind/);
    expect(
      kindReachProblem(
        "web/console-pages.tsx",
        at("web/console-pages.tsx"),
        "kinds/restore/kind.ts",
        kind("kind.ts"),
      ),
    ).toMatch(/^web\/console-pages.tsx \(http\) imports a job kind's module/);
    expect(
      kindReachProblem(
        "features/payments.ts",
        at("features/payments.ts"),
        "kinds/restore/services/store.ts",
        kind("services/store.ts"),
      ),
    ).toMatch(/reaches inside job kind restore/);
    expect(
      kindReachProblem(
        "features/payments.ts",
        at("features/payments.ts"),
        "kinds/restore/kind.ts",
        kind("kind.ts"),
      ),
    ).toBeUndefined();
  });

  it("holds the packages to the same rules: no cycle, no upward arrow to a command", () => {
    // packages/client had client.ts ↔ wait.ts (a type went back up for the wait's options).
    const cycle = new Map<string, string[]>([
      ["client.ts", ["wait.ts"]],
      ["wait.ts", ["client.ts"]],
    ]);
    expect(packageStructure("packages/client/src", cycle)).toEqual([
      "packages/client/src: import cycle: client.ts → wait.ts",
    ]);
    const upward = new Map<string, string[]>([
      ["index.ts", ["commands/jobs.ts"]],
      ["commands/jobs.ts", ["format.ts"]],
      ["format.ts", ["commands/restore.ts"]],
      ["commands/restore.ts", []],
    ]);
    expect(packageStructure("packages/cli/src", upward)).toEqual([
      "packages/cli/src: folders import each other: commands/ and format.ts (commands/jobs.ts → format.ts; and back: format.ts → commands/restore.ts)",
      "packages/cli/src: format.ts imports upwards: commands/restore.ts (only index.ts imports commands/)",
    ]);
  });
});

/**
 * `@kinora/client`'s generated types are the server's: packages/client/src/generated.ts is what
 * scripts/gen-client.ts makes from today's OpenAPI document and contracts, byte for byte (run
 * `npm run gen:client` after changing a contract). And the package stays publishable and light:
 * not private, no runtime dependencies, ESM with its types.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GENERATED_PATH, generate, loadContracts } from "../../scripts/gen-client.js";

const pkgDir = path.dirname(path.dirname(GENERATED_PATH));

describe("@kinora/client", () => {
  it("generated.ts is up to date with the contracts (npm run gen:client)", async () => {
    const expected = await generate();
    const current = readFileSync(GENERATED_PATH, "utf8");
    expect(
      current === expected,
      "packages/client/src/generated.ts is stale: npm run gen:client",
    ).toBe(true);
    // Builds the whole app on a fresh database (as src/http/openapi-doc.test.ts does): slow when busy.
  }, 180_000);

  it("has a method for every REST operation, spending ones marked", async () => {
    const { OPERATIONS } = await import("../../packages/client/src/generated.js");
    const contracts = await loadContracts();
    expect(Object.keys(OPERATIONS).sort()).toEqual([...contracts.keys()].sort());
    for (const [id, c] of contracts) {
      expect(OPERATIONS[id as keyof typeof OPERATIONS].spends, id).toBe(c.spends);
    }
    expect(OPERATIONS.createRestore.spends).toBe(true);
    expect(OPERATIONS.getRestore.spends).toBe(false);
  });

  it("shows money and error rows exactly as the server does", async () => {
    const { formatCents, ERROR_TABLE } = await import("../../packages/client/src/index.js");
    const { displayCents } = await import("../../src/domain/money.js");
    const { ERROR_CODES } = await import("../../src/domain/error-codes.js");
    for (const cents of [0, 1, 99, 299, 100_000, 123_456_789, -150]) {
      expect(formatCents(cents)).toBe(displayCents(cents));
    }
    expect(ERROR_TABLE).toEqual(ERROR_CODES);
  });

  it("reads restore quality names exactly as the server does", async () => {
    const { restoreQualityFromName, RESTORE_QUALITY_LABELS } = await import(
      "../../packages/client/src/index.js"
    );
    const { qualityFromName, QUALITY_LABELS } = await import(
      "../../src/kinds/restore/rules/quality-names.js"
    );
    expect(RESTORE_QUALITY_LABELS).toEqual(QUALITY_LABELS);
    const typed = ["Studio Max", "studio-max", "STUDIO_MAX", "enhanced_max", "Enhanced-Max"];
    typed.push("standard", " Standard ", "faithful", "Enhanced", "studio", "", "max", "premium");
    for (const name of typed)
      expect(restoreQualityFromName(name), name).toBe(qualityFromName(name));
    expect(restoreQualityFromName("Studio Max")).toBe("enhanced_max");
  });

  it("is publishable with no runtime dependencies", () => {
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
    expect(pkg.name).toBe("@kinora/client");
    expect(pkg.private).toBeUndefined();
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.type).toBe("module");
    expect(pkg.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
  });
});

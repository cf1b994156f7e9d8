import { describe, expect, it } from "vitest";
import { computeSourceHash, loadArtifacts, SOLC_VERSION } from "./artifacts.js";

describe("committed contract artifacts", () => {
  it("were compiled from the current Solidity sources (else run: npx tsx test/chain/compile.ts)", () => {
    const artifacts = loadArtifacts();
    expect(artifacts.solcVersion.startsWith(SOLC_VERSION)).toBe(true);
    expect(artifacts.sourceHash).toBe(computeSourceHash());
    for (const c of Object.values(artifacts.contracts)) {
      expect(c.bytecode).toMatch(/^0x[0-9a-f]{100,}$/);
      expect(c.deployedBytecode).toMatch(/^0x[0-9a-f]{100,}$/);
    }
  });
});

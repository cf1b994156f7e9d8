import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Abi, Hex } from "viem";

/** The compiler and settings the committed artifacts were built with (see compile.ts). */
export const SOLC_VERSION = "0.8.26";
export const CONTRACT_FILES = ["TestUSDC.sol", "Multicall3.sol"] as const;
export const SOLC_SETTINGS = {
  // ganache 7.9 implements EVM rules up to Shanghai; newer targets emit opcodes it lacks (MCOPY, …).
  evmVersion: "shanghai",
  optimizer: { enabled: true, runs: 200 },
  metadata: { bytecodeHash: "none" },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
} as const;

export type ContractArtifact = { abi: Abi; bytecode: Hex; deployedBytecode: Hex };
export type Artifacts = {
  solcVersion: string;
  sourceHash: string;
  contracts: { TestUSDC: ContractArtifact; Multicall3: ContractArtifact };
};

const contractsDir = new URL("./contracts/", import.meta.url);
export const ARTIFACTS_URL = new URL("./artifacts.json", contractsDir);

export function readSource(file: string): string {
  return readFileSync(new URL(file, contractsDir), "utf8");
}

/** Hash of everything that determines the bytecode, so a stale artifact is caught by a test. */
export function computeSourceHash(): string {
  const hash = createHash("sha256");
  hash.update(`${SOLC_VERSION}\n${JSON.stringify(SOLC_SETTINGS)}\n`);
  for (const file of CONTRACT_FILES) hash.update(`${file}\n${readSource(file)}\n`);
  return hash.digest("hex");
}

let cached: Artifacts | undefined;

/** The committed, precompiled artifacts: tests need no compiler run. */
export function loadArtifacts(): Artifacts {
  cached ??= JSON.parse(readFileSync(ARTIFACTS_URL, "utf8")) as Artifacts;
  return cached;
}

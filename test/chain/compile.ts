/**
 * Regenerates test/chain/contracts/artifacts.json from the Solidity sources with solc
 * (npm, wasm). Run after editing a contract:
 *
 *   npx tsx test/chain/compile.ts
 *
 * The artifact is committed so tests start in milliseconds instead of loading the
 * 8 MB compiler; artifacts.test.ts fails when the sources no longer match it.
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";
import {
  ARTIFACTS_URL,
  type Artifacts,
  CONTRACT_FILES,
  type ContractArtifact,
  computeSourceHash,
  readSource,
  SOLC_SETTINGS,
  SOLC_VERSION,
} from "./artifacts.js";

type Solc = { compile(input: string): string; version(): string };
type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<
    string,
    Record<
      string,
      { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
};

export function compileContracts(): Artifacts {
  // solc ships no type declarations; it is a CommonJS module.
  const solc = createRequire(import.meta.url)("solc") as Solc;
  if (!solc.version().startsWith(SOLC_VERSION)) {
    throw new Error(`solc ${SOLC_VERSION} expected, found ${solc.version()}`);
  }
  const sources = Object.fromEntries(CONTRACT_FILES.map((f) => [f, { content: readSource(f) }]));
  const input = { language: "Solidity", sources, settings: SOLC_SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const pick = (file: string, name: string): ContractArtifact => {
    const c = output.contracts[file]?.[name];
    if (!c) throw new Error(`${name} missing from solc output`);
    return {
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}` as Hex,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}` as Hex,
    };
  };
  return {
    solcVersion: solc.version(),
    sourceHash: computeSourceHash(),
    contracts: {
      TestUSDC: pick("TestUSDC.sol", "TestUSDC"),
      Multicall3: pick("Multicall3.sol", "Multicall3"),
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const artifacts = compileContracts();
  writeFileSync(ARTIFACTS_URL, `${JSON.stringify(artifacts, null, 2)}\n`);
  console.log(`wrote ${fileURLToPath(ARTIFACTS_URL)} (${artifacts.solcVersion})`);
}

/**
 * The EIP-55 checksum of configured addresses (a mixed-case address with a wrong checksum is a
 * typo): checked with viem, loaded only when USDC is switched on.
 */
import { getAddress, isAddress } from "viem";
import type { X402Config } from "./config.js";

/** The problems with the config's addresses, as "X402_…: …" lines; empty when fine. */
export function addressChecksumProblems(cfg: Pick<X402Config, "asset" | "payTo">): string[] {
  const problems: string[] = [];
  if (!isAddress(cfg.asset, { strict: true })) {
    problems.push("X402_ASSET: the address's mixed-case checksum is wrong (a typo?)");
  }
  if (!isAddress(cfg.payTo, { strict: true })) {
    problems.push("X402_PAY_TO: the address's mixed-case checksum is wrong (a typo?)");
  }
  return problems;
}

/** The config with both addresses in their EIP-55 mixed-case form, as payers' wallets show them. */
export function withChecksummedAddresses<T extends Pick<X402Config, "asset" | "payTo">>(cfg: T): T {
  return { ...cfg, asset: getAddress(cfg.asset), payTo: getAddress(cfg.payTo) };
}

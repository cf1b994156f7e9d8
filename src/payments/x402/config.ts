/**
 * Configuration of USDC top-ups over x402 v2 (exact scheme, EIP-3009 authorizations).
 *
 * Production defaults are Base mainnet and Circle's USDC. Tests point every field at a
 * local chain and an in-process facilitator (see test/chain/).
 */
// No viem here: this module is loaded at every start, USDC on or off (viem costs ~0.4 s).
// Checksums of mixed-case addresses are checked by checksum.ts when USDC is switched on.
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const isAddress = (value: string) => ADDRESS.test(value);

type EvmNetwork = `eip155:${number}`;

/** USDC top-up settings: chain, asset, receiving address, facilitator, RPC. */
export interface X402Config {
  /** CAIP-2 id, must agree with `chainId` (e.g. "eip155:8453"). */
  network: EvmNetwork;
  chainId: number;
  /** ERC-20 + EIP-3009 token contract (USDC). */
  asset: `0x${string}`;
  /** EIP-712 domain of the token: payers sign against it, so it must match the contract. */
  assetName: string;
  assetVersion: string;
  /** Operator address that receives top-ups. */
  payTo: `0x${string}`;
  facilitatorUrl: string;
  /** Static headers sent on every facilitator call (verify, settle, supported). */
  facilitatorHeaders?: Record<string, string>;
  /** Per-request facilitator deadline. A settle that runs past it has an unknown outcome. */
  facilitatorTimeoutMs?: number;
  /** Our own RPC endpoint: we confirm transfers on chain ourselves, never on the facilitator's word. */
  rpcUrl: string;
  /** Blocks (including the transfer's own) before a top-up is credited. */
  confirmations: number;
  /** Explorer link template, `{tx}` is replaced by the transaction hash; none on unknown chains. */
  explorerTxUrl?: string | undefined;
  /** How long a signed authorization stays valid (the payer's `validBefore`). */
  maxTimeoutSeconds: number;
  /** Operator wallet key for refunding unused USDC-funded balance; refunds are off without it. */
  refundPrivateKey?: `0x${string}`;
}

/** Circle's USDC on Base mainnet; its EIP-712 domain is ("USD Coin", "2"). */
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;

/** The chain and USDC contract on Base mainnet. */
export const BASE_MAINNET_DEFAULTS = {
  network: "eip155:8453",
  chainId: 8453,
  asset: BASE_USDC,
  assetName: "USD Coin",
  assetVersion: "2",
  // Base produces a block every 2 s; 5 blocks keeps crediting within ~10 s while riding
  // out the sequencer's rare unsafe-head reorgs.
  confirmations: 5,
  explorerTxUrl: "https://basescan.org/tx/{tx}",
  // The x402 SDK's own default validity window.
  maxTimeoutSeconds: 300,
  facilitatorTimeoutMs: 30_000,
} as const satisfies Partial<X402Config>;

type X402Deployment = Pick<X402Config, "payTo" | "facilitatorUrl" | "rpcUrl"> & Partial<X402Config>;

/** Base mainnet config for an operator: only where to be paid and which services to call. */
export function x402ConfigForBase(deployment: X402Deployment): X402Config {
  return validateX402Config({ ...BASE_MAINNET_DEFAULTS, ...deployment });
}

/**
 * Checks a config once at start-up so a typo (a chain id that disagrees with the network,
 * a malformed address) fails loudly instead of refusing every payment later.
 * Returns the config with addresses in checksum form.
 */
export function validateX402Config(cfg: X402Config): X402Config {
  const problems: string[] = [];
  if (!Number.isSafeInteger(cfg.chainId) || cfg.chainId <= 0) problems.push("chainId");
  if (cfg.network !== `eip155:${cfg.chainId}`) {
    problems.push(`network must be eip155:${cfg.chainId}`);
  }
  if (!isAddress(cfg.asset)) problems.push("asset must be an address");
  if (!isAddress(cfg.payTo)) problems.push("payTo must be an address");
  if (!cfg.assetName || !cfg.assetVersion) problems.push("assetName and assetVersion");
  if (!isHttpUrl(cfg.facilitatorUrl)) problems.push("facilitatorUrl must be http(s)");
  if (!isHttpUrl(cfg.rpcUrl)) problems.push("rpcUrl must be http(s)");
  if (!Number.isSafeInteger(cfg.confirmations) || cfg.confirmations < 1) {
    problems.push("confirmations must be an integer >= 1");
  }
  if (cfg.explorerTxUrl !== undefined && !cfg.explorerTxUrl.includes("{tx}")) {
    problems.push("explorerTxUrl must contain {tx}");
  }
  if (!Number.isSafeInteger(cfg.maxTimeoutSeconds) || cfg.maxTimeoutSeconds < 30) {
    problems.push("maxTimeoutSeconds must be an integer >= 30");
  }
  if (cfg.refundPrivateKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(cfg.refundPrivateKey)) {
    problems.push("refundPrivateKey must be 32 bytes of hex");
  }
  if (problems.length > 0) throw new Error(`Invalid x402 config: ${problems.join("; ")}`);
  return cfg;
}

/** Explorers we know: a link is made by default only on these chains (Base and Base Sepolia). */
export const KNOWN_EXPLORERS: Readonly<Record<number, string>> = {
  8453: "https://basescan.org/tx/{tx}",
  84532: "https://sepolia.basescan.org/tx/{tx}",
};

/** Link to a transaction on the configured explorer; null when none is configured. */
export function explorerUrl(cfg: Pick<X402Config, "explorerTxUrl">, txHash: string): string | null {
  return cfg.explorerTxUrl ? cfg.explorerTxUrl.replace("{tx}", txHash) : null;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

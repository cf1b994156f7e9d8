/**
 * An offline EVM chain for payment tests: ganache in-process, served over HTTP on
 * 127.0.0.1 (random port), with TestUSDC deployed and minted to a payer and Multicall3 at
 * its canonical address.
 *
 *   const chain = await startLocalChain();
 *   // chain.rpcUrl, chain.usdc, chain.payer.privateKey, …
 *   await chain.setAutomine(false); // transactions wait in the pool: the 202 path
 *   await chain.mine();             // mine them
 *   await chain.close();
 */
import ganache from "ganache";
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseEther,
  stringToHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { loadArtifacts } from "./artifacts.js";

export const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;
/** Default test chain id: not a real network, so no SDK default asset applies to it. */
export const LOCAL_CHAIN_ID = 1337;
/** 1,000 USDC in atomic units (6 decimals). */
export const DEFAULT_PAYER_USDC = 1_000_000_000n;

export interface TestAccount {
  address: Address;
  privateKey: Hex;
  account: Account;
}

export interface LocalChain {
  rpcUrl: string;
  chainId: number;
  network: `eip155:${number}`;
  chain: Chain;
  usdc: Address;
  multicall3: Address;
  /** Deploys the token and may mint. */
  deployer: TestAccount;
  /** Holds DEFAULT_PAYER_USDC (or `payerUsdc`). */
  payer: TestAccount;
  /** Holds no USDC at all. */
  poorPayer: TestAccount;
  /** The service operator: receives top-ups, sends refunds. Holds ETH for gas. */
  operator: TestAccount;
  /** Pays gas to settle on the payer's behalf. */
  facilitatorSigner: TestAccount;
  publicClient: PublicClient;
  usdcBalance(address: Address): Promise<bigint>;
  mint(to: Address, amountAtomic: bigint): Promise<void>;
  /** Mines `blocks` blocks, including any pooled transactions, even with automine off. */
  mine(blocks?: number): Promise<void>;
  /** Off: transactions stay pending until mine(). On: each transaction is mined at once. */
  setAutomine(on: boolean): Promise<void>;
  /** Raw JSON-RPC call, for ganache's evm_* and miner_* methods. */
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

/** Deterministic, clearly fake keys: keccak256 of a label. Never hold real funds with them. */
export function testAccount(label: string): TestAccount {
  const privateKey = keccak256(stringToHex(`kinora-test:${label}`));
  const account = privateKeyToAccount(privateKey);
  return { address: account.address, privateKey, account };
}

export async function startLocalChain(
  opts: { chainId?: number; payerUsdc?: bigint } = {},
): Promise<LocalChain> {
  const chainId = opts.chainId ?? LOCAL_CHAIN_ID;
  const [deployer, payer, poorPayer, operator, facilitatorSigner] = [
    "deployer",
    "payer",
    "poor-payer",
    "operator",
    "facilitator",
  ].map(testAccount) as [TestAccount, TestAccount, TestAccount, TestAccount, TestAccount];
  const balance = `0x${parseEther("1000").toString(16)}`;
  const server = ganache.server({
    logging: { quiet: true },
    chain: { chainId, hardfork: "shanghai" },
    wallet: {
      accounts: [deployer, payer, poorPayer, operator, facilitatorSigner].map((a) => ({
        secretKey: a.privateKey,
        balance,
      })),
    },
  });
  await server.listen(0, "127.0.0.1");
  const rpcUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const rpc = (method: string, params: unknown[] = []) =>
    server.provider.request({ method, params } as never) as Promise<unknown>;
  try {
    const chain = localChainDefinition(chainId, rpcUrl);
    const token = await deployContracts(chain, rpcUrl, deployer, rpc);
    await token.mint(payer.address, opts.payerUsdc ?? DEFAULT_PAYER_USDC);
    return {
      rpcUrl,
      chainId,
      network: `eip155:${chainId}`,
      chain,
      ...token,
      multicall3: MULTICALL3_ADDRESS,
      deployer,
      payer,
      poorPayer,
      operator,
      facilitatorSigner,
      mine: async (blocks = 1) => {
        for (let i = 0; i < blocks; i++) await rpc("evm_mine");
      },
      setAutomine: async (on) => {
        await rpc(on ? "miner_start" : "miner_stop");
      },
      rpc,
      close: () => server.close(),
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/** Puts Multicall3 at its canonical address and deploys TestUSDC from `deployer`. */
async function deployContracts(
  chain: Chain,
  rpcUrl: string,
  deployer: TestAccount,
  rpc: LocalChain["rpc"],
): Promise<Pick<LocalChain, "usdc" | "publicClient" | "usdcBalance" | "mint">> {
  const { TestUSDC, Multicall3 } = loadArtifacts().contracts;
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 });
  const wallet = createWalletClient({ chain, transport, account: deployer.account });
  // Multicall3 has no constructor or immutables, so its runtime code can be placed directly.
  await rpc("evm_setAccountCode", [MULTICALL3_ADDRESS, Multicall3.deployedBytecode]);
  const hash = await wallet.deployContract({ abi: TestUSDC.abi, bytecode: TestUSDC.bytecode });
  const { contractAddress: usdc } = await publicClient.waitForTransactionReceipt({ hash });
  if (!usdc) throw new Error("TestUSDC deployment produced no address");
  return {
    usdc,
    publicClient,
    usdcBalance: (owner) =>
      publicClient.readContract({
        address: usdc,
        abi: TestUSDC.abi,
        functionName: "balanceOf",
        args: [owner],
      }) as Promise<bigint>,
    mint: async (to, amountAtomic) => {
      const mintHash = await wallet.writeContract({
        address: usdc,
        abi: TestUSDC.abi,
        functionName: "mint",
        args: [to, amountAtomic],
      });
      await publicClient.waitForTransactionReceipt({ hash: mintHash });
    },
  };
}

export function localChainDefinition(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `kinora-local-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

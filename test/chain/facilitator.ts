/**
 * A real x402 facilitator for tests, built from the official pieces (x402Facilitator +
 * @x402/evm's exact scheme + toFacilitatorEvmSigner) and served over HTTP on 127.0.0.1
 * with the API HTTPFacilitatorClient calls: GET /supported, POST /verify, POST /settle.
 *
 *   const fac = await startFacilitator({ rpcUrl, chainId, privateKey });
 *   // fac.url → X402Config.facilitatorUrl
 *   await fac.close();
 *
 * `confirmationTimeoutMs` bounds how long /settle waits for the receipt. When the chain
 * does not mine in time, @x402/evm answers success:false, errorReason "settlement_pending"
 * with the tx hash: the 202 path. `faults` injects failures a real facilitator can have.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { type Address, createWalletClient, type Hex, http, publicActions } from "viem";
import { nonceManager, privateKeyToAccount } from "viem/accounts";
import { localChainDefinition } from "./local-chain.js";

export interface FacilitatorFaults {
  /** Answer every call with this HTTP status and a non-x402 body (e.g. 503). */
  status?: number;
  /** Answer only /settle with this status, without settling (a facilitator failing mid-way). */
  settleStatus?: number;
  /** Settle for real, then hold the answer this long (to exceed a client's timeout). */
  settleDelayMs?: number;
}

export interface FacilitatorHarness {
  url: string;
  address: Address;
  /** Mutable: change between calls to inject failures. */
  faults: FacilitatorFaults;
  /** Paths called so far, in order (e.g. ["/supported", "/verify", "/settle"]). */
  calls: string[];
  close(): Promise<void>;
}

export interface StartFacilitatorOptions {
  rpcUrl: string;
  chainId: number;
  privateKey: Hex;
  /** How long /settle waits for a receipt before answering settlement_pending. */
  confirmationTimeoutMs?: number;
  /** viem polling interval; its 4 s default would make every receipt wait slow. */
  pollingIntervalMs?: number;
}

const MAX_BODY_BYTES = 256 * 1024;

export async function startFacilitator(opts: StartFacilitatorOptions): Promise<FacilitatorHarness> {
  const facilitator = buildFacilitator(opts);
  const faults: FacilitatorFaults = {};
  const calls: string[] = [];
  const server = createServer((req, res) => {
    calls.push(req.url ?? "");
    handle(facilitator, faults, req, res).catch((err: unknown) => {
      sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    address: privateKeyToAccount(opts.privateKey).address,
    faults,
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function buildFacilitator(opts: StartFacilitatorOptions): x402Facilitator {
  // A nonce manager keeps concurrent settlements from reusing a nonce while one is pending.
  const account = privateKeyToAccount(opts.privateKey, { nonceManager });
  const client = createWalletClient({
    account,
    chain: localChainDefinition(opts.chainId, opts.rpcUrl),
    transport: http(opts.rpcUrl, { retryCount: 0 }),
    cacheTime: 0,
    pollingInterval: opts.pollingIntervalMs ?? 50,
  }).extend(publicActions);
  // The viem methods' generic signatures are stricter than the signer's loose records.
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode: (args) => client.getCode(args),
      readContract: (args) => client.readContract({ ...args, args: args.args ?? [] } as never),
      verifyTypedData: (args) => client.verifyTypedData(args as never),
      writeContract: (args) => client.writeContract({ ...args, args: args.args ?? [] } as never),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    },
    { confirmationTimeoutMs: opts.confirmationTimeoutMs ?? 1_000 },
  );
  return new x402Facilitator().register(`eip155:${opts.chainId}`, new ExactEvmScheme(signer));
}

async function handle(
  facilitator: x402Facilitator,
  faults: FacilitatorFaults,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (faults.status) return sendJson(res, faults.status, { error: "injected fault" });
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (req.method === "GET" && path === "/supported") {
    return sendJson(res, 200, facilitator.getSupported());
  }
  if (req.method !== "POST" || (path !== "/verify" && path !== "/settle")) {
    return sendJson(res, 404, { error: "not found" });
  }
  const body = (await readJson(req)) as {
    paymentPayload?: PaymentPayload;
    paymentRequirements?: PaymentRequirements;
  };
  if (!body.paymentPayload || !body.paymentRequirements) {
    return sendJson(res, 400, { error: "Missing paymentPayload or paymentRequirements" });
  }
  if (path === "/verify") {
    return sendJson(
      res,
      200,
      await facilitator.verify(body.paymentPayload, body.paymentRequirements),
    );
  }
  if (faults.settleStatus) return sendJson(res, faults.settleStatus, { error: "injected fault" });
  const settled = await facilitator.settle(body.paymentPayload, body.paymentRequirements);
  if (faults.settleDelayMs) await new Promise((r) => setTimeout(r, faults.settleDelayMs));
  return sendJson(res, 200, settled);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error("request body too large");
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

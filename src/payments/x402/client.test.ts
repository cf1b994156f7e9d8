import { x402Client } from "@x402/core/client";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { testAccount } from "../../../test/chain/local-chain.js";
import { payWithX402 } from "./client.js";
import type { X402Config } from "./config.js";
import { x402ConfigForBase } from "./config.js";
import { buildPaymentRequired, encodeHeader } from "./terms.js";

// Signing is offline: no chain is needed to check what the payer signs.
const payer = testAccount("client-test-payer");
const resource = { url: "https://kinora.example/wallet/topup/crypto", description: "Top-up" };
const base = x402ConfigForBase({
  payTo: testAccount("client-test-operator").address,
  facilitatorUrl: "https://facilitator.example",
  rpcUrl: "https://rpc.example",
});
const local: X402Config = {
  ...base,
  network: "eip155:1337",
  chainId: 1337,
  asset: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
};

describe("payWithX402", () => {
  it("signs an EIP-3009 authorization for exactly the terms", async () => {
    const paymentRequired = buildPaymentRequired(base, 5_000, resource);
    const before = Math.floor(Date.now() / 1000);
    const payment = await payWithX402({
      privateKey: payer.privateKey,
      paymentRequired: encodeHeader(paymentRequired),
      maxAmountAtomic: 50_000_000n,
    });
    const payload = decodePaymentSignatureHeader(payment.header);
    expect(payload.accepted).toEqual(paymentRequired.accepts[0]);
    const auth = (payload.payload as { authorization: Record<string, string> }).authorization;
    expect(auth).toMatchObject({ from: payer.address, to: base.payTo, value: "50000000" });
    expect(Number(auth.validBefore)).toBeGreaterThanOrEqual(before + base.maxTimeoutSeconds);
    expect(auth.nonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(payment).toMatchObject({ payer: payer.address, nonce: auth.nonce });
  });

  it("refuses to pay more than the payer's cap", async () => {
    await expect(
      payWithX402({
        privateKey: payer.privateKey,
        paymentRequired: buildPaymentRequired(base, 5_000, resource),
        maxAmountAtomic: 49_999_999n,
      }),
    ).rejects.toThrow(/maxAmountPerPayment/);
  });

  it("pays an unknown token only when the payer lists it", async () => {
    const paymentRequired = buildPaymentRequired(local, 100, resource);
    const input = { privateKey: payer.privateKey, paymentRequired, maxAmountAtomic: 10_000_000n };
    await expect(payWithX402(input)).rejects.toThrow(/spendControls/);
    const allowedAssets = [{ network: local.network, asset: local.asset }];
    await expect(payWithX402({ ...input, allowedAssets })).resolves.toMatchObject({
      payer: payer.address,
    });
  });

  it("FACTS check: the official client alone refuses over $1 and unknown assets", async () => {
    const client = new x402Client().register(
      "eip155:*",
      new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(payer.privateKey))),
    );
    await expect(
      client.createPaymentPayload(buildPaymentRequired(base, 101, resource)),
    ).rejects.toThrow(/maxAmountPerPayment \(\$1/);
    await expect(
      client.createPaymentPayload(buildPaymentRequired(base, 100, resource)),
    ).resolves.toMatchObject({ x402Version: 2 });
    await expect(
      client.createPaymentPayload(buildPaymentRequired(local, 50, resource)),
    ).rejects.toThrow(/only default assets/);
  });
});

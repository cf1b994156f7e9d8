import { decodePaymentRequiredHeader } from "@x402/core/http";
import { type FacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { describe, expect, it } from "vitest";
import { addressChecksumProblems, withChecksummedAddresses } from "./checksum.js";
import {
  BASE_MAINNET_DEFAULTS,
  explorerUrl,
  validateX402Config,
  type X402Config,
  x402ConfigForBase,
} from "./config.js";
import {
  buildPaymentRequired,
  buildRequirements,
  centsToAtomic,
  decodePaymentRequired,
  decodePaymentSignature,
  encodeHeader,
  MalformedPaymentError,
} from "./terms.js";

const raw = x402ConfigForBase({
  payTo: "0x00000000000000000000000000000000000000a1",
  facilitatorUrl: "https://facilitator.example",
  rpcUrl: "https://mainnet.base.org",
});
const cfg = withChecksummedAddresses(raw);
const resource = { url: "https://kinora.example/wallet/topup/crypto", description: "Top-up" };

/** A facilitator that only answers /supported, for building requirements the SDK's way. */
function supportedOnly(network: string): FacilitatorClient {
  const fail = () => Promise.reject(new Error("not used"));
  return {
    verify: fail,
    settle: fail,
    getSupported: async () => ({
      kinds: [{ x402Version: 2, scheme: "exact", network: network as `${string}:${string}` }],
      extensions: [],
      signers: {},
    }),
  };
}

describe("payment terms", () => {
  it("asks for USDC on Base, 10^4 atomic units per cent, paid to the operator", () => {
    const required = buildPaymentRequired(cfg, 1_999, resource);
    expect(required).toEqual({
      x402Version: 2,
      resource: { ...resource, mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:8453",
          amount: "19990000",
          asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
          payTo: "0x00000000000000000000000000000000000000A1",
          maxTimeoutSeconds: 300,
          extra: { name: "USD Coin", version: "2" },
        },
      ],
    });
    expect(buildPaymentRequired(cfg, 100, resource, "try again").error).toBe("try again");
  });

  it("equals what x402ResourceServer.buildPaymentRequirements builds, field for field", async () => {
    const server = new x402ResourceServer(supportedOnly(cfg.network)).register(
      cfg.network,
      new ExactEvmScheme(),
    );
    await server.initialize();
    const [official] = await server.buildPaymentRequirements({
      scheme: "exact",
      network: cfg.network,
      payTo: cfg.payTo,
      maxTimeoutSeconds: cfg.maxTimeoutSeconds,
      price: {
        asset: cfg.asset,
        amount: centsToAtomic(4_250),
        extra: { name: cfg.assetName, version: cfg.assetVersion },
      },
    });
    expect(buildRequirements(cfg, 4_250)).toEqual(official);
  });

  it("round-trips the PAYMENT-REQUIRED header", () => {
    const required = buildPaymentRequired(cfg, 500, resource);
    expect(decodePaymentRequiredHeader(encodeHeader(required))).toEqual(required);
    expect(decodePaymentRequired(encodeHeader(required))).toEqual(required);
    expect(() => decodePaymentRequired("%%%")).toThrow(MalformedPaymentError);
  });

  it("refuses non-positive or fractional cents", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => centsToAtomic(bad)).toThrow(RangeError);
    }
    expect(centsToAtomic(20_000)).toBe("200000000");
  });

  it("explains why a PAYMENT-SIGNATURE header cannot be read", () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");
    const v1 = { x402Version: 1, scheme: "exact", network: "base", payload: {} };
    expect(() => decodePaymentSignature("  ")).toThrow(/empty/);
    expect(() => decodePaymentSignature("***")).toThrow(/base64-encoded JSON/);
    expect(() => decodePaymentSignature(b64([1, 2]))).toThrow(/not an x402 payment payload/);
    expect(() => decodePaymentSignature(b64(v1))).toThrow(/version 2/);
  });
});

describe("x402 config", () => {
  it("defaults to USDC on Base mainnet; checksums addresses once USDC is loaded", () => {
    expect(cfg).toMatchObject({ ...BASE_MAINNET_DEFAULTS });
    expect(raw.payTo).toBe("0x00000000000000000000000000000000000000a1");
    expect(cfg.payTo).toBe("0x00000000000000000000000000000000000000A1");
    expect(explorerUrl(cfg, "0xabc")).toBe("https://basescan.org/tx/0xabc");
    expect(addressChecksumProblems(raw)).toEqual([]);
    // Circle's USDC on Base with one letter's case flipped: a typo the checksum catches.
    const typo = "0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
    expect(addressChecksumProblems({ ...raw, asset: typo })).toEqual([
      expect.stringMatching(/^X402_ASSET: .*checksum/),
    ]);
  });

  it("refuses a config whose parts disagree", () => {
    const bad: X402Config = {
      ...cfg,
      network: "eip155:84532",
      payTo: "0x123" as `0x${string}`,
      confirmations: 0,
      explorerTxUrl: "https://basescan.org/tx/",
    };
    expect(() => validateX402Config(bad)).toThrow(
      /network must be eip155:8453.*payTo must be an address.*confirmations.*explorerTxUrl/,
    );
  });
});

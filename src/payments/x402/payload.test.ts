import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { x402ConfigForBase } from "./config.js";
import { checkPayload, readAuthorization } from "./payload.js";
import { buildRequirements, type PaymentPayload } from "./terms.js";

const cfg = x402ConfigForBase({
  payTo: "0x00000000000000000000000000000000000000a1",
  facilitatorUrl: "https://facilitator.example",
  rpcUrl: "https://mainnet.base.org",
});
const ours = buildRequirements(cfg, 500);
const now = 1_800_000_000;
const authorization = {
  from: "0x00000000000000000000000000000000000000b2",
  to: "0x00000000000000000000000000000000000000a1",
  value: "5000000",
  validAfter: "0",
  validBefore: String(now + 300),
  nonce: `0x${"AB".repeat(32)}`,
};

function payload(overrides: Record<string, unknown> = {}, accepted = ours): PaymentPayload {
  return {
    x402Version: 2,
    accepted,
    payload: { authorization: { ...authorization, ...overrides }, signature: "0x1234" },
  };
}

describe("local payload checks", () => {
  it("accepts what matches and returns a normalised dedupe key", () => {
    expect(checkPayload(payload(), ours, now)).toMatchObject({
      ok: true,
      payer: getAddress(authorization.from),
      nonce: `0x${"ab".repeat(32)}`,
    });
  });

  it("names the first term that disagrees", () => {
    const cases: [PaymentPayload, string][] = [
      [payload({}, { ...ours, network: "eip155:84532" }), "network_mismatch"],
      [payload({}, { ...ours, asset: authorization.from }), "asset_mismatch"],
      [payload({}, { ...ours, payTo: authorization.from }), "recipient_mismatch"],
      [payload({}, { ...ours, amount: "1" }), "amount_mismatch"],
      [payload({ to: authorization.from }), "recipient_mismatch"],
      [payload({ value: "4999999" }), "amount_mismatch"],
      [payload({ validBefore: String(now + 5) }), "authorization_expired"],
    ];
    for (const [p, code] of cases) {
      expect(checkPayload(p, ours, now)).toMatchObject({ ok: false, code });
    }
  });

  it("refuses payloads that are not EIP-3009 authorizations", () => {
    const permit2 = { ...payload(), payload: { permit2Authorization: {}, signature: "0x12" } };
    expect(checkPayload(permit2, ours, now)).toEqual({ ok: false, code: "unsupported_payload" });
    for (const bad of [{ nonce: "0x12" }, { value: "-1" }, { from: "nope" }, { value: 5 }]) {
      expect(readAuthorization(payload(bad))).toBeUndefined();
    }
  });
});

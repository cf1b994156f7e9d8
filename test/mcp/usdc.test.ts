/**
 * top_up_with_usdc over the x402 v2 MCP transport, offline: ganache + TestUSDC + a local
 * facilitator, the official x402 client signing, through each MCP client (v2 in both eras, 1.32). The first call answers the PaymentRequired
 * terms as an error result; the retry carries the payload in _meta["x402/payment"] and gets the
 * settlement in result._meta["x402/payment-response"]; a replay credits nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { payWithX402 } from "../../src/payments/x402/client.js";
import { type PaymentWorld, startPaymentWorld } from "../chain/world.js";
import { x402Env } from "../payments/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { CLIENTS, call, connect, refusal } from "./helpers.js";

let world: PaymentWorld;
let s: ServedApp;
beforeAll(async () => {
  world = await startPaymentWorld({ confirmationTimeoutMs: 2000 });
  const x402 = { rpc: { retryCount: 0, cacheTime: 0 } };
  s = await serveTestApp({
    env: x402Env(world),
    features: [paymentsFeature({ x402 }), mcpFeature()],
  });
});
afterAll(async () => {
  await s?.close();
  await world?.close();
});

describe("top_up_with_usdc over MCP", () => {
  it.each(CLIENTS)(
    "answers the x402 terms, settles the signed retry, credits once, and replays nothing (%s)",
    async (kind) => {
      const owner = await s.t.newWallet(0);
      const key = (
        await s.t.call("POST", "/wallet/keys", { key: owner.key, body: { limit_cents: 1000 } })
      ).body.key as string;
      const client = await connect(s.url, key, { client: kind });

      // The x402 MCP transport: an error result whose first text is {"x402/error": {code, message,
      // data: PaymentRequired}}, read by the official SDK client after tools/list.
      const refused = refusal(await call(client, "top_up_with_usdc", { amount_cents: 150 }));
      expect(refused["x402/error"]).toMatchObject({ code: 402, message: expect.any(String) });
      // In MCP words: the payment goes in _meta, not in a REST header.
      expect(refused["x402/error"].message).toMatch(/_meta\["x402\/payment"\]/);
      expect(refused["x402/error"].message).not.toMatch(/PAYMENT-SIGNATURE/);
      const terms = refused["x402/error"].data;
      expect(terms).toMatchObject({ x402Version: 2 });
      expect(terms.accepts[0]).toMatchObject({
        scheme: "exact",
        network: world.config.network,
        amount: "1500000",
        payTo: world.config.payTo,
      });

      const payment = await payWithX402({
        privateKey: world.chain.payer.privateKey,
        paymentRequired: terms,
        maxAmountAtomic: 200_000_000n,
        allowedAssets: [{ network: world.config.network, asset: world.config.asset }],
      });
      const meta = { "x402/payment": payment.payload };
      const paid = await call(client, "top_up_with_usdc", { amount_cents: 150 }, meta);
      expect(paid.isError, JSON.stringify(paid.structuredContent)).toBeFalsy();
      expect(paid.structuredContent).toMatchObject({
        credited_cents: 150,
        wallet: { balance_cents: 150 },
      });
      expect(paid._meta?.["x402/payment-response"]).toMatchObject({
        success: true,
        transaction: paid.structuredContent.transaction,
      });

      // The same signed payment again (a retry, or a replay by someone who saw it): no new credit.
      const replay = await call(client, "top_up_with_usdc", { amount_cents: 150 }, meta);
      const again = replay.isError ? refusal(replay) : replay.structuredContent;
      expect(again.credited_cents ?? 0).toBeLessThanOrEqual(150);
      const wallet = await s.t.call("GET", "/wallet", { key: owner.key });
      expect(wallet.body.wallet.balance_cents).toBe(150);
      const credits = await s.t.deps.db
        .selectFrom("ledger_entries")
        .select("amount_cents")
        .where("wallet_id", "=", owner.walletId)
        .where("kind", "=", "topup")
        .execute();
      expect(credits).toEqual([{ amount_cents: 150 }]);
      await client.close();
    },
  );
});

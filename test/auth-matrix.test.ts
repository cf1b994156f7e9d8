/**
 * The auth matrix, run over every operation the OpenAPI document marks with bearer security —
 * so a new keyed route is covered the moment it is declared. Each operation is called with:
 * no key, an unknown key, a revoked key, a malformed header, a key in the URL, the wallet key,
 * an agent key and another wallet's agent key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEATURES } from "../src/features.js";
import { createTestApp, type TestApp } from "./app.js";

interface Operation {
  method: string;
  path: string;
  walletOnly: boolean;
  /** `security: [{}, {bearer: []}]`: works without a key, but a bad key is still a 401. */
  keyOptional: boolean;
}

let t: TestApp;
const operations: Operation[] = [];
let keys: { wallet: string; agent: string; revoked: string; otherAgent: string };

beforeAll(async () => {
  // Every feature kinora serves, so each keyed route of restore, clips and payments is covered.
  t = await createTestApp({ features: FEATURES });
  const doc = (await t.call("GET", "/openapi.json")).body as {
    paths: Record<
      string,
      Record<string, { security?: Record<string, unknown>[]; "x-wallet-key-only"?: boolean }>
    >;
  };
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op.security?.some((s) => "bearer" in s)) {
        operations.push({
          method: method.toUpperCase(),
          path,
          walletOnly: op["x-wallet-key-only"] === true,
          keyOptional: op.security.some((s) => Object.keys(s).length === 0),
        });
      }
    }
  }
  const owner = await t.newWallet(10_000);
  const agent = await t.newAgentKey(owner.key, 1000);
  const revoked = await t.newAgentKey(owner.key, 1000);
  await t.call("POST", `/wallet/keys/${revoked.id}/revoke`, { key: owner.key });
  const other = await t.newWallet(10_000);
  const otherAgent = await t.newAgentKey(other.key, 1000);
  keys = { wallet: owner.key, agent: agent.key, revoked: revoked.key, otherAgent: otherAgent.key };
});
afterAll(async () => {
  await t.close();
});

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "does_not_exist_0000");

describe("auth matrix", () => {
  it("covers the keyed routes", () => {
    expect(operations.length).toBeGreaterThanOrEqual(12);
  });

  it("refuses every keyed route without a valid key (401, error body)", async () => {
    for (const op of operations) {
      const path = concrete(op.path);
      const variants: Record<string, string>[] = [
        {},
        { authorization: "Bearer pmk_00000000000000000000000000000000000000000" },
        { authorization: "Bearer pak_00000000000000000000000000000000000000000" },
        { authorization: `Bearer ${keys.revoked}` },
        { authorization: "Basic dXNlcjpwYXNz" },
        { authorization: "Bearer not-a-key" },
      ];
      for (const headers of op.keyOptional ? variants.slice(1) : variants) {
        const res = await t.call(op.method, path, {
          headers,
          body: op.method === "POST" ? {} : undefined,
        });
        expect(res.status, `${op.method} ${op.path} with ${JSON.stringify(headers)}`).toBe(401);
        expect(typeof res.body.detail).toBe("string");
        const revoked = headers.authorization === `Bearer ${keys.revoked}`;
        expect(res.body.code).toBe(revoked ? "key_revoked" : "unauthorized");
      }
    }
  });

  it("refuses a key in the URL outside /mcp with 400", async () => {
    for (const op of operations) {
      const res = await t.call(op.method, `${concrete(op.path)}?key=${keys.agent}`, {
        body: op.method === "POST" ? {} : undefined,
      });
      expect(res.status, `${op.method} ${op.path}`).toBe(400);
      expect(res.body.detail).toMatch(/only on \/mcp/);
      expect(res.body.code).toBe("key_in_url");
    }
  });

  it("lets the wallet key through; agent keys through unless wallet-key-only (403)", async () => {
    for (const op of operations) {
      const path = concrete(op.path);
      const body = op.method === "POST" ? {} : undefined;
      const asWallet = await t.call(op.method, path, { key: keys.wallet, body });
      expect([401, 403, 500], `${op.method} ${op.path} as wallet`).not.toContain(asWallet.status);
      for (const agent of [keys.agent, keys.otherAgent]) {
        const res = await t.call(op.method, path, { key: agent, body });
        if (op.walletOnly) {
          expect(res.status, `${op.method} ${op.path} as agent`).toBe(403);
          expect(res.body.code).toBe("wallet_key_required");
        } else {
          expect([401, 403, 500], `${op.method} ${op.path} as agent`).not.toContain(res.status);
        }
      }
    }
  });
});

import type { Wallet } from "@kinora/client";
import { describe, expect, it } from "vitest";
import { shortfalls } from "./affordability.js";

const AT = "2026-11-25T20:00:00.000Z";
const owner: Wallet = {
  wallet_id: "wal_1",
  balance_cents: 1000,
  spendable_cents: 1000,
  paused: false,
  email: null,
};
const agent = (limit: number, spent: number, balance = 1000): Wallet => ({
  ...owner,
  balance_cents: balance,
  spendable_cents: Math.min(balance, limit - spent),
  agent_key: {
    id: "key_A",
    label: "bot",
    limit_cents: limit,
    spent_cents: spent,
    remaining_cents: limit - spent,
    created_at: AT,
    last_used_at: null,
    revoked: false,
    kind: "agent",
    ask_before_spending: true,
    ask_above_cents: null,
  },
});

describe("shortfalls: what stops a key paying a price", () => {
  it("nothing when the balance and the key's limit cover it, to the cent", () => {
    expect(shortfalls(owner, 1000)).toEqual([]);
    expect(shortfalls(agent(500, 200), 300)).toEqual([]);
  });

  it("a short balance names the top-up (at least the $5 the server takes)", () => {
    const [gap] = shortfalls({ ...owner, balance_cents: 150 }, 299);
    expect(gap?.code).toBe("needs_topup");
    expect(gap?.lines).toEqual([
      "The balance is $1.50, $1.49 short of the price.",
      "Top up first: kinora topup 5",
    ]);
    expect(shortfalls({ ...owner, balance_cents: 0 }, 1299)[0]?.lines[1]).toBe(
      "Top up first: kinora topup 13",
    );
  });

  it("an agent key's limit names the owner's command with a limit that covers it", () => {
    const [gap] = shortfalls(agent(500, 300), 499);
    expect(gap?.code).toBe("over_limit");
    expect(gap?.lines[1]).toBe(
      "The wallet's owner can raise it with the wallet key: kinora keys limit key_A 8",
    );
  });

  it("both, in the order to fix them; a paused wallet alone (nothing else helps)", () => {
    expect(shortfalls(agent(100, 0, 50), 299).map((g) => g.code)).toEqual([
      "needs_topup",
      "over_limit",
    ]);
    expect(shortfalls({ ...agent(100, 0, 50), paused: true }, 299).map((g) => g.code)).toEqual([
      "wallet_paused",
    ]);
  });
});

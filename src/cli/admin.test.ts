import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ADMIN_TOKEN } from "../../test/app.js";
import { type ServedApp, serveTestApp } from "../../test/served.js";
import { paymentsFeature } from "../features/payments.js";
import { runAdminCommand } from "./admin.js";

/** No command here is migrate, the one that reads the job kinds' tables. */
const noKinds = async () => [];

let s: ServedApp;
beforeAll(async () => {
  // Payments without USDC: the admin USDC refund answers 503 unavailable.
  s = await serveTestApp({ features: [paymentsFeature()] });
});
afterAll(async () => {
  await s.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.ADMIN_TOKEN;
});

/** Runs `kinora admin …` against the served app; its exit code and what it printed. */
async function admin(args: string[], token: string | undefined = ADMIN_TOKEN) {
  if (token === undefined) delete process.env.ADMIN_TOKEN;
  else process.env.ADMIN_TOKEN = token;
  let out = "";
  let err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  const code = await runAdminCommand([...args, "--server", s.url], noKinds);
  vi.restoreAllMocks();
  return { code, out, err };
}

describe("kinora admin", () => {
  it("credits and debits in dollars and says what it did; --json gives the API's answer", async () => {
    const { walletId } = await s.t.newWallet(0);
    const done = await admin(["credit", walletId, "2.50", "--reason", "test"]);
    expect(done.code, done.err).toBe(0);
    expect(done.out).toBe(`Credited $2.50 to ${walletId} ("test"); its balance is now $2.50.\n`);
    for (const typed of ["5", "$5", "5.00"]) {
      const more = await admin(["credit", walletId, typed, "--reason", `as ${typed}`]);
      expect(more.code, more.err).toBe(0);
    }
    // A negative amount is a value, not an option: it debits.
    const debit = await admin(["credit", walletId, "-1", "--reason", "test debit", "--json"]);
    expect(debit.code, debit.err).toBe(0);
    expect(JSON.parse(debit.out)).toMatchObject({ wallet_id: walletId, balance_cents: 1650 });
    const again = await admin([
      "credit",
      walletId,
      "-$0.50",
      "--reason",
      "r",
      "--reference",
      "t-1",
    ]);
    expect(again.out).toBe(
      `Debited $0.50 from ${walletId} ("r", reference t-1); its balance is now $16.00.\n`,
    );
    const replay = await admin([
      "credit",
      walletId,
      "-0.50",
      "--reason",
      "r",
      "--reference",
      "t-1",
    ]);
    expect(replay.out).toMatch(
      /^Nothing applied: reference "t-1" was already used .* \$16\.00\.$/m,
    );
    for (const wrong of ["0", "abc", "5.005", "1e3"]) {
      const refused = await admin(["credit", walletId, wrong, "--reason", "x"]);
      expect(refused.code, wrong).toBe(2);
    }
  });

  it("pauses, lists held payments and reconciles in sentences", async () => {
    const { walletId } = await s.t.newWallet(1234);
    const paused = await admin(["pause", walletId, "--reason", "review"]);
    expect(paused.out).toBe(
      `Paused ${walletId}: nothing can be spent from it until \`kinora admin unpause ${walletId}\` (balance $12.34).\n`,
    );
    const unpaused = await admin(["unpause", walletId]);
    expect(unpaused.out).toBe(`Unpaused ${walletId}: it can spend again (balance $12.34).\n`);
    expect((await admin(["held"])).out).toBe("No card payment is held.\n");
    const reconciled = await admin(["reconcile"]);
    expect(reconciled.code).toBe(0);
    expect(reconciled.out).toMatch(
      /^The ledger reconciles: \d+ wallets, \d+ keys and \d+ ledger entries checked\.$/m,
    );
  });

  it("exits by the error table's exit column for the code the server answered", async () => {
    const missing = await admin(["pause", "wal_doesnotexist00000000"]);
    expect(missing.err).toMatch(/^kinora admin: 404: /);
    expect(missing.code).toBe(1); // not_found
    const wrongToken = await admin(["held"], "not-the-admin-token-at-all");
    expect(wrongToken.err).toMatch(/401/);
    expect(wrongToken.code).toBe(1); // unauthorized
    const { walletId } = await s.t.newWallet(100);
    const usdcOff = await admin(["usdc-refund", walletId]);
    expect(usdcOff.err).toMatch(/503: USDC refunds are not switched on/);
    expect(usdcOff.code).toBe(4); // unavailable
  });

  it("exits 4 when no server answers and 2 for a wrong command line", async () => {
    process.env.ADMIN_TOKEN = ADMIN_TOKEN;
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await runAdminCommand(["held", "--server", "http://127.0.0.1:9"], noKinds)).toBe(4);
    expect(await runAdminCommand(["credit", "wal_x"], noKinds)).toBe(2);
    expect(await runAdminCommand(["frobnicate"], noKinds)).toBe(2);
    delete process.env.ADMIN_TOKEN;
    expect(await runAdminCommand(["held"], noKinds)).toBe(2);
  });
});

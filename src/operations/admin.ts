/** The operator's operations' handlers. */

import * as c from "../api/contracts/admin.js";
import { implement, type Operation } from "../api/operation.js";
import { adjustBalance } from "../services/adjustments.js";
import type { CoreDeps } from "../services/deps.js";
import { listHeldCheckouts, releaseHeldCheckout } from "../services/payments/checkouts.js";
import type { PaymentsDeps } from "../services/payments/deps.js";
import { refundUsdc } from "../services/payments/usdc.js";
import { reconcile } from "../services/reconcile.js";
import { setWalletPaused } from "../services/wallets.js";

const adjust = implement(c.adjustWalletBalance, async (deps: CoreDeps, a) =>
  adjustBalance(deps, {
    walletId: a.wallet_id,
    amountCents: a.amount_cents,
    reason: a.reason,
    reference: a.reference,
  }),
);

const switchPause =
  (paused: boolean) =>
  async (deps: CoreDeps, a: { wallet_id: string; reason?: string | undefined }) => {
    const row = await setWalletPaused(deps, a.wallet_id, paused, a.reason ?? null);
    return { id: row.id, paused: row.paused, balance_cents: row.balance_cents };
  };
const pause = implement(c.pauseWallet, switchPause(true));
const unpause = implement(c.unpauseWallet, switchPause(false));

const check = implement(c.reconcileLedger, async (deps: CoreDeps) => {
  const report = await reconcile(deps.db);
  // Metrics keep the last result, so an alert can fire on drift found by a scheduled call.
  deps.events?.reconciled({
    ok: report.ok,
    driftItems: report.drift.length,
    atMs: deps.clock().getTime(),
  });
  return report;
});

/** The operator's wallet and ledger operations, bound to the core services. */
export function adminOperations(deps: CoreDeps): Operation[] {
  return [adjust, pause, unpause, check].map((bind) => bind(deps));
}

const held = implement(c.listHeldCheckouts, async (deps: PaymentsDeps) => ({
  held: await listHeldCheckouts(deps),
}));

const release = implement(c.releaseHeldCheckout, async (deps: PaymentsDeps, a) =>
  releaseHeldCheckout(deps, a.checkout_id, a.amount_cents),
);

const usdcRefund = implement(c.refundUsdc, async (deps: PaymentsDeps, a) => ({
  refund: await refundUsdc(deps, { walletId: a.wallet_id, amountCents: a.amount_cents }),
}));

/** The operator's payment operations, served by the payments feature. */
export function paymentsAdminOperations(deps: PaymentsDeps): Operation[] {
  return [held, release, usdcRefund].map((bind) => bind(deps));
}

/** The wallet history handlers: the ledger a page at a time, and spending per day and key. */

import * as c from "../api/contracts/ledger.js";
import { implement, type Operation } from "../api/operation.js";
import type { CoreDeps } from "../services/deps.js";
import { listLedger } from "../services/ledger-view.js";
import { spendingByDay } from "../services/spending-view.js";

const ledger = implement(c.listLedger, async (deps: CoreDeps, a, ctx) =>
  listLedger(deps, ctx.principal.walletId, { before: a.before, limit: a.limit }),
);

const spending = implement(c.getSpending, async (deps: CoreDeps, a, ctx) =>
  spendingByDay(deps, ctx.principal.walletId, a.days ?? c.SPENDING_DAYS.example),
);

/** The wallet history operations, bound to the core services. */
export function ledgerOperations(deps: CoreDeps): Operation[] {
  return [ledger, spending].map((bind) => bind(deps));
}

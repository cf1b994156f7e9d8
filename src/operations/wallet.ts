/** The wallet operations' handlers. */

import * as c from "../api/contracts/wallet.js";
import { implement, type Operation } from "../api/operation.js";
import {
  changeKey,
  createAgentKey,
  listAgentKeys,
  revokeAgentKey,
} from "../services/agent-keys.js";
import type { CoreDeps } from "../services/deps.js";
import { createWallet, walletView } from "../services/wallets.js";
import { type ApprovalOperationDeps, approvalOperations } from "./approvals.js";
import { ledgerOperations } from "./ledger.js";

/**
 * What the wallet operations need: the core services, the cap on active agent keys, and what
 * the purchase approvals of asking keys need.
 */
interface WalletOperationDeps extends CoreDeps, ApprovalOperationDeps {
  config: { maxAgentKeys: number; purchaseApprovalTtlMs: number };
}

const create = implement(c.createWallet, async (deps: WalletOperationDeps, a) =>
  createWallet(deps, { email: a.email ?? null }),
);

const read = implement(c.getWallet, async (deps: WalletOperationDeps, _a, ctx) => ({
  wallet: await walletView(deps, ctx.principal),
}));

const createKey = implement(c.createAgentKey, async (deps: WalletOperationDeps, a, ctx) =>
  createAgentKey(deps, ctx.principal.walletId, {
    label: a.label,
    limitCents: a.limit_cents,
    askBeforeSpending: a.ask_before_spending,
    askAboveCents: a.ask_above_cents,
    maxActive: deps.config.maxAgentKeys,
  }),
);

const listKeys = implement(c.listAgentKeys, async (deps: WalletOperationDeps, _a, ctx) => ({
  keys: await listAgentKeys(deps, ctx.principal.walletId),
}));

const limitKey = implement(c.changeAgentKeyLimit, async (deps: WalletOperationDeps, a, ctx) => ({
  agent_key: await changeKey(deps, ctx.principal.walletId, a.key_id, {
    limitCents: a.limit_cents,
    askAboveCents: a.ask_above_cents,
  }),
}));

const revokeKey = implement(c.revokeAgentKey, async (deps: WalletOperationDeps, a, ctx) => ({
  agent_key: await revokeAgentKey(deps, ctx.principal.walletId, a.key_id),
}));

/** The wallet area's operations (its history's too), bound to the core services. */
export function walletOperations(deps: WalletOperationDeps): Operation[] {
  return [
    ...[create, read, createKey, listKeys, limitKey, revokeKey].map((bind) => bind(deps)),
    ...ledgerOperations(deps),
    ...approvalOperations(deps),
  ];
}

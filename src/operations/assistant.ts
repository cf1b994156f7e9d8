/**
 * The assistant-only combinations' handlers, over every job kind the server serves: get_prices
 * runs each kind's prices operation, cancel_job the cancel operation of the kind the id names —
 * the same operations REST serves, so the same services, errors and refunds.
 */

import { cancelJobContract, getPricesContract } from "../api/contracts/assistant.js";
import { implement, type Operation } from "../api/operation.js";
import { notFound } from "../domain/errors.js";
import type { CoreDeps } from "../services/deps.js";
import { freshPrincipal, walletView } from "../services/wallets.js";
import { idPrefixesInWords, type KindSurface, kindOfId } from "./kinds.js";

/** The kinds' facts the contracts are made from. */
const contractsOf = (kinds: readonly KindSurface[]) =>
  kinds.map((k) => ({
    name: k.name,
    plural: k.plural,
    idPrefix: k.idPrefix,
    cancel: k.cancel.contract,
    prices: k.prices.contract,
  }));

/** What a kind's cancel answers: the job and, for some kinds, the wallet after the refund. */
interface Cancelled {
  job: unknown;
  wallet?: Awaited<ReturnType<typeof walletView>>;
}

/** The assistant-only operations (no REST binding) over `kinds`, bound to the core services. */
export function assistantOperations(kinds: readonly KindSurface[], deps: CoreDeps): Operation[] {
  const facts = contractsOf(kinds);
  const prices = implement(getPricesContract(facts), async (_d: CoreDeps, _a, ctx) => {
    const each = await Promise.all(
      kinds.map(async (k) => [k.name, await k.prices.handle({}, ctx)] as const),
    );
    return Object.fromEntries(each);
  });
  const cancel = implement(cancelJobContract(facts), async (d: CoreDeps, a, ctx) => {
    const kind = kindOfId(kinds, a.job_id);
    if (!kind) throw notFound(`Job (ids start with ${idPrefixesInWords(kinds)})`);
    // A kind's cancel role answers {job, wallet?}: jobSchemaOf refused one without a job.
    // cast: a kind's cancel role answers {job, wallet?} (jobSchemaOf refused a kind without a job)
    const done = (await kind.cancel.handle({ job_id: a.job_id }, ctx)) as Cancelled;
    return {
      job: done.job,
      wallet: done.wallet ?? (await walletView(d, freshPrincipal(ctx.principal))),
    };
  });
  return [prices(deps), cancel(deps)];
}

/**
 * A job kind as the surfaces reach it: its names, the prefix of its ids, and its operations
 * (bound to its services) by the role each plays — read one job, follow it, list this key's
 * jobs, cancel one that has not started, its prices. Each kind's feature publishes one
 * (src/kinds/kind.ts); MCP's cancel_job and get_prices, the job-id remedies, the console's
 * job lists and the MCP instructions are made from the list, so none of them names a kind.
 */
import type { AnyContract, Operation } from "../api/operation.js";

/** One job kind, as every surface sees it. */
export interface KindSurface {
  /** The kind's name (`restore`, `clip`): the work items', the worker API's and metrics' label. */
  name: string;
  /** How a message names one job ("restore job", "clip"). */
  noun: string;
  /** How a message names several ("restores", "clips"). */
  plural: string;
  /** Its job ids are `<idPrefix>_…` (`rj`, `clip`). */
  idPrefix: string;
  /** The contracts of every operation of the kind, wherever served (a checkout by payments). */
  contracts: readonly AnyContract[];
  /** Reads one job by its id (`{job_id}` → `{job, …}`). */
  get: Operation;
  /** Follows one job over MCP, with the key that made it (a task's follow tool). */
  follow: Operation;
  /** This key's jobs of the kind, newest first (`{limit?, cursor?}` → `{jobs, next_cursor}`). */
  list: Operation;
  /** Cancels a job that has not started (`{job_id}` → `{job, wallet?}`), refunded at once. */
  cancel: Operation;
  /** Free: the kind's prices and limits. */
  prices: Operation;
  /** A done job's pictures (`{job_id}` → `{still, frames}`), where the kind makes them. */
  pictures?: AnyContract;
  /** What an assistant is told about the kind's flow, step by step (MCP `instructions`). */
  instructions: string;
  /** How the ledger shows a line the kind wrote, where it words them its own way. */
  ledgerText?(reason: string): string;
}

/** The kind whose ids `id` is one of, by its prefix; undefined for an id of no kind. */
export function kindOfId(kinds: readonly KindSurface[], id: string): KindSurface | undefined {
  return kinds.find((k) => id.startsWith(`${k.idPrefix}_`));
}

/** The kinds `contract` belongs to (one, or none for an operation of no kind). */
export function kindsOf(kinds: readonly KindSurface[], contract: AnyContract): KindSurface[] {
  return kinds.filter((k) => k.contracts.includes(contract));
}

/** "rj_ (restores) or clip_ (clips)": how ids tell the kinds apart, for messages. */
export function idPrefixesInWords(kinds: readonly KindSurface[]): string {
  const each = kinds.map((k) => `${k.idPrefix}_ (${k.plural})`);
  return each.length <= 1
    ? (each[0] ?? "")
    : `${each.slice(0, -1).join(", ")} or ${each[each.length - 1]}`;
}

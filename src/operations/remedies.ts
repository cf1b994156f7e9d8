/**
 * What to do after a refusal, for codes that mean the same next step whichever operation
 * answered them. An operation's own `remedies` (in its contract) come first; the sentence is
 * appended to the error's detail, naming operations as the caller's surface does.
 */

import { createTopUpLink, topUpWithUsdc } from "../api/contracts/payments.js";
import type { AnyContract, Refer, Remedy } from "../api/operation.js";
import type { ErrorCode } from "../domain/error-codes.js";
import { recordOf } from "../domain/records.js";
import { idPrefixesInWords, type KindSurface, kindOfId, kindsOf } from "./kinds.js";

/** How this surface names `contract`, or nothing when the surface does not serve it. */
function nameable(refer: Refer, contract: AnyContract): string[] {
  try {
    return [refer(contract)];
  } catch {
    return [];
  }
}

/**
 * The next step after a job that was not found: an id of another kind (a restore's id given
 * to a clip's read) says which operation reads it; any other id — unknown, another key's, or
 * mistyped — points to the list of this key's jobs of the kind asked for (every kind's where
 * the operation is of none, as cancel_job).
 */
function jobNotFound(
  contract: AnyContract | undefined,
  refer: Refer,
  id: string,
  kinds: readonly KindSurface[],
): string {
  const asked = contract ? kindsOf(kinds, contract) : [];
  const wanted = asked.length > 0 ? asked : kinds;
  const other = kindOfId(kinds, id);
  if (other && !wanted.includes(other)) {
    const read = [other.get.contract, other.follow.contract];
    const article = /^[aeiou]/i.test(other.name) ? "an" : "a";
    return `${id.slice(0, 64)} is ${article} ${other.name}'s id: read it with ${refer(read, { job_id: id })}.`;
  }
  // A kind may list its jobs on one surface only (a preview: REST, not MCP): name the others.
  const lists = wanted.flatMap((k) => nameable(refer, k.list.contract)).join(" or ");
  if (!lists)
    return other
      ? "This key sees only its own jobs."
      : `Job ids start with ${idPrefixesInWords(kinds)}.`;
  return other
    ? `This key sees only its own jobs: ${lists} lists them.`
    : `Job ids start with ${idPrefixesInWords(kinds)}; ${lists} lists this key's jobs.`;
}

const SHARED: Partial<Record<ErrorCode, Remedy>> = {
  needs_topup: (refer) =>
    `Add money with ${refer(createTopUpLink)} (a card checkout link for the person paying) or ${refer(topUpWithUsdc)} (USDC over x402).`,
};

/**
 * The detail of a refusal with its next step, if one is known for this operation and code;
 * `kinds` are the job kinds the server serves (a job id that was not found is told by them).
 */
export function withRemedy(
  detail: string,
  code: ErrorCode,
  contract: AnyContract | undefined,
  refer: Refer,
  input: unknown,
  kinds: readonly KindSurface[] = [],
): string {
  const args = recordOf(input);
  const remedy = contract?.remedies?.[code] ?? SHARED[code];
  const next = remedy?.(refer, args);
  if (next) return `${detail} ${next}`;
  if (code === "not_found" && typeof args.job_id === "string" && kinds.length > 0) {
    return `${detail} ${jobNotFound(contract, refer, args.job_id, kinds)}`;
  }
  return detail;
}

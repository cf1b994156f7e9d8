/**
 * What to do after a refusal, for codes that mean the same next step whichever operation
 * answered them. An operation's own `remedies` (in its contract) come first; the sentence is
 * appended to the error's detail, naming operations as the caller's surface does.
 */

import { createTopUpLink, topUpWithUsdc } from "../api/contracts/payments.js";
import type { AnyContract, Refer, Remedy } from "../api/operation.js";
import type { ErrorCode } from "../domain/error-codes.js";
import { getClip, listClips } from "../kinds/clips/api/contracts.js";
import { followRestore, getRestore, listRestores } from "../kinds/restore/api/contracts.js";

/** The two kinds of job an id can name, by its prefix, and how each is read and listed. */
const JOB_KINDS = [
  { prefix: "rj_", noun: "a restore", read: [getRestore, followRestore], list: listRestores },
  { prefix: "clip_", noun: "a clip", read: [getClip], list: listClips },
] as const;

/**
 * The next step after a job that was not found: an id of the other kind (a restore's id given
 * to a clip's read) says which reads it; any other id — unknown, another key's, or mistyped —
 * points to the list of this key's jobs of the kind asked for (both kinds where either was).
 */
function jobNotFound(contract: AnyContract | undefined, refer: Refer, id: string): string {
  const name = contract ? `${contract.id} ${contract.mcp?.name ?? ""}` : "";
  const asked = JOB_KINDS.filter((k) =>
    k.list === listRestores ? /restore/i.test(name) : /clip/i.test(name),
  );
  const wanted = asked.length > 0 ? asked : JOB_KINDS;
  const other = JOB_KINDS.find((k) => id.startsWith(k.prefix) && !wanted.includes(k));
  if (other) {
    return `${id.slice(0, 64)} is ${other.noun}'s id: read it with ${refer(other.read, { job_id: id })}.`;
  }
  const lists = wanted.map((k) => refer(k.list)).join(" or ");
  const known = JOB_KINDS.some((k) => id.startsWith(k.prefix));
  return known
    ? `This key sees only its own jobs: ${lists} lists them.`
    : `Job ids start with rj_ (restores) or clip_ (clips); ${lists} lists this key's jobs.`;
}

const SHARED: Partial<Record<ErrorCode, Remedy>> = {
  needs_topup: (refer) =>
    `Add money with ${refer(createTopUpLink)} (a card checkout link for the person paying) or ${refer(topUpWithUsdc)} (USDC over x402).`,
};

/** The detail of a refusal with its next step, if one is known for this operation and code. */
export function withRemedy(
  detail: string,
  code: ErrorCode,
  contract: AnyContract | undefined,
  refer: Refer,
  input: unknown,
): string {
  const args = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const remedy = contract?.remedies?.[code] ?? SHARED[code];
  if (remedy) return `${detail} ${remedy(refer, args)}`;
  if (code === "not_found" && typeof args.job_id === "string") {
    return `${detail} ${jobNotFound(contract, refer, args.job_id)}`;
  }
  return detail;
}

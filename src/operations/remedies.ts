/**
 * What to do after a refusal, for codes that mean the same next step whichever operation
 * answered them. An operation's own `remedies` (in its contract) come first; the sentence is
 * appended to the error's detail, naming operations as the caller's surface does.
 */

import { createTopUpLink, topUpWithUsdc } from "../api/contracts/payments.js";
import type { AnyContract, Refer, Remedy } from "../api/operation.js";
import type { ErrorCode } from "../domain/error-codes.js";

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
  const remedy = contract?.remedies?.[code] ?? SHARED[code];
  if (!remedy) return detail;
  const args = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  return `${detail} ${remedy(refer, args)}`;
}

/**
 * The owner's approval, enforced for every surface in the one runner (./run.ts): a spending call
 * of an agent key or connected app that must ask its owner (`ask_before_spending`) runs only on
 * an approval the owner gave on kinora for exactly this operation, these arguments and this
 * price. Without one it is refused with `agreement_required`, carrying the approval it now waits
 * for (`approval_id`, and `approval_url`: the page where the owner decides). Nothing the agent
 * sends is consent — not `max_price_cents` (a cap), not an approval id (the approval is found by
 * the key and the purchase, never by what the call names). The one other yes is a person's
 * answer to an MCP elicitation form, which the MCP surface checks (mcp/agreement.ts) and passes
 * as `agreed`.
 */
import type { AnyContract, CallContext } from "../api/operation.js";
import { agreementQuestion } from "../api/spend.js";
import { ApiError } from "../domain/errors.js";
import {
  approvalUrl,
  approvedFor,
  askOwner,
  type Purchase,
  purchaseDigest,
} from "../services/approvals.js";
import type { CoreDeps } from "../services/deps.js";

/** What the gate needs from the surface: where the page is, how long an approval lasts. */
export interface ApprovalPolicy {
  publicUrl: string;
  ttlMs: number;
}

/** What a spending call may do: go ahead as any call, or go ahead on an approval (once). */
export type SpendGate =
  | { kind: "free" }
  | { kind: "approved"; approvalId: string; purchase: Purchase };

/**
 * Whether a purchase at `cents` by this caller must wait for its owner: an agent key or
 * connected app with `ask_before_spending`, unless the price is at or below the threshold the
 * owner set (`ask_above_cents`; null asks for every purchase). Only the owner sets either.
 */
export function mustAsk(principal: CallContext["principal"] | undefined, cents: number): boolean {
  if (principal?.kind !== "agent") return false;
  const key = principal.snapshot?.key;
  if (!(key?.askBeforeSpending ?? true)) return false;
  const above = key?.askAboveCents ?? null;
  return above === null || cents > above;
}

/** The purchase a call of an asking key makes, or undefined when it needs no approval. */
function purchaseOf(
  contract: AnyContract,
  input: Record<string, unknown>,
  ctx: Pick<CallContext, "principal">,
  agreed: boolean,
): Purchase | undefined {
  const p = ctx.principal;
  if (!contract.price || p?.kind !== "agent" || agreed) return undefined;
  const quote = contract.price(input);
  if (!quote || !mustAsk(p, quote.cents)) return undefined;
  return {
    walletId: p.walletId,
    keyId: p.keyId,
    operationId: contract.id,
    digest: purchaseDigest(input),
    priceCents: quote.cents,
    question: agreementQuestion(quote),
  };
}

/**
 * Whether this call may run: freely, or on the owner's approval of exactly this purchase.
 * Otherwise throws `agreement_required` after asking the owner (a pending approval, its
 * webhook); nothing is charged. `agreed`: a person said yes in an MCP elicitation form.
 */
export async function spendGate(
  contract: AnyContract,
  input: Record<string, unknown>,
  ctx: CallContext,
  deps: CoreDeps | undefined,
  policy: ApprovalPolicy | undefined,
  agreed = false,
): Promise<SpendGate> {
  const purchase = purchaseOf(contract, input, ctx, agreed);
  if (!purchase) return { kind: "free" };
  if (!deps || !policy) {
    // A surface that cannot ask spends nothing for a key that must ask.
    throw new ApiError(
      "agreement_required",
      "This key must ask its owner before spending, and this surface cannot ask; nothing was charged.",
      { price_cents: purchase.priceCents, question: purchase.question },
    );
  }
  const approved = await approvedFor(deps, purchase);
  if (approved) return { kind: "approved", approvalId: approved.id, purchase };
  throw await askRefusal(deps, policy, purchase, ctx.surface);
}

/**
 * Asks the owner for `purchase` (or finds the question already open, or their recent no) and
 * returns the refusal that says so, worded for the caller's surface.
 */
export async function askRefusal(
  deps: CoreDeps,
  policy: ApprovalPolicy,
  purchase: Purchase,
  surface: CallContext["surface"],
): Promise<ApiError> {
  const asked = await askOwner({ ...deps, publicUrl: policy.publicUrl }, purchase, policy.ttlMs);
  const { row } = asked;
  const url = approvalUrl(policy.publicUrl, row.id);
  const extra = {
    price_cents: purchase.priceCents,
    question: purchase.question,
    approval_id: row.id,
    approval_url: url,
  };
  if (asked.kind === "declined") {
    return new ApiError(
      "agreement_required",
      `The owner declined "${purchase.question}"; nothing was charged. Do not ask again for the same purchase now.`,
      extra,
    );
  }
  return new ApiError(
    "agreement_required",
    askDetail(purchase.question, url, row.id, row.expiresAt, surface),
    extra,
  );
}

/** The refusal's words while the owner has not answered: the link, then how to go on. */
export function askDetail(
  question: string,
  url: string,
  id: string,
  expiresAt: Date,
  surface: CallContext["surface"],
): string {
  const then =
    surface === "mcp"
      ? "When they say they approved, call this tool again with the same arguments: it spends once."
      : `GET /approvals/${id}?wait=60 answers when they decide; once approved, send this same request again: it spends once.`;
  return `This key must ask its owner before spending; nothing was charged. Show the owner this link to approve or decline "${question}": ${url} (it expires at ${expiresAt.toISOString()}). ${then}`;
}

/**
 * For a surface that shows the owner the page itself (an MCP client's URL elicitation): the
 * purchase's approval as it stands — none needed, already approved (the runner uses it), or
 * pending at `url` (asked now if it was not). A purchase the owner declined throws its refusal.
 */
export async function approvalToShow(
  contract: AnyContract,
  input: Record<string, unknown>,
  ctx: Pick<CallContext, "principal" | "surface">,
  deps: CoreDeps,
  policy: ApprovalPolicy,
): Promise<{ kind: "none" | "approved" } | { kind: "pending"; url: string; question: string }> {
  const purchase = purchaseOf(contract, input, ctx, false);
  if (!purchase) return { kind: "none" };
  if (await approvedFor(deps, purchase)) return { kind: "approved" };
  const asked = await askOwner({ ...deps, publicUrl: policy.publicUrl }, purchase, policy.ttlMs);
  if (asked.kind === "declined") throw await askRefusal(deps, policy, purchase, ctx.surface);
  return {
    kind: "pending",
    url: approvalUrl(policy.publicUrl, asked.row.id),
    question: purchase.question,
  };
}

/**
 * The owner's agreement over MCP, for a key that must ask (`ask_before_spending: true`). A
 * 2026-07-28 client that declared elicitation gets an `inputRequired` answer — a form showing the
 * owner the price and what is bought, answered by the client's person, not the model — and the
 * call spends only when the client sends it again with the owner's yes and the `requestState`
 * minted here. That state is signed (./request-state.ts: bound to the key, ten minutes), names
 * the tool, a digest of the arguments and the price, so a yes never buys anything else; and its
 * nonce becomes the call's idempotency key, so sending the same yes twice replays the first
 * purchase instead of buying again. Stateless: any node finishes it. An agent key's client that
 * declared URL-mode elicitation is shown kinora's approval page instead (the pending approval
 * asked here); its "accept" only says the page was shown — the runner then spends only if the
 * owner approved there. Every other call goes to the
 * runner, whose gate (operations/spend-approval.ts) spends only on the owner's approval on
 * kinora — refused with the approval link otherwise. `max_price_cents` is a cap, never a yes.
 * The wallet key's own calls (the owner's key) keep the older rule: max_price_cents is its yes.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  type InputRequiredResult,
  inputRequired,
  inputResponse,
} from "@modelcontextprotocol/server";
import type { Operation } from "../api/operation.js";
import { agreementQuestion, type SpendQuote } from "../api/spend.js";
import { ApiError } from "../domain/errors.js";
import { approvalToShow, mustAsk } from "../operations/spend-approval.js";
import type { McpCall, McpContext } from "./context.js";
import { mintRequestState } from "./request-state.js";

/** The inputRequests key of the confirmation form. */
const CONFIRM = "confirm";

/** What a spending call may do next. */
export type Agreement =
  | {
      kind: "go";
      input: Record<string, unknown>;
      idempotencyKey?: string;
      /** The owner said yes in the form: the runner's approval gate lets it through. */
      agreed?: true;
    }
  | { kind: "ask"; result: InputRequiredResult };

/** The claims a confirmation's requestState carries (besides the key it is bound to). */
interface SpendClaims {
  tool: string;
  args: string;
  cents: number;
  nonce: string;
  /** The owner was shown kinora's approval page (URL mode), not a form. */
  via?: "url";
}

function digest(input: Record<string, unknown>): string {
  return createHash("sha256").update(JSON.stringify(input)).digest("base64url");
}

function spendClaims(state: Record<string, unknown> | undefined): SpendClaims | undefined {
  // cast: each field is checked with typeof just below before it is used
  const spend = state?.spend as Partial<SpendClaims> | undefined;
  if (
    typeof spend?.tool !== "string" ||
    typeof spend.args !== "string" ||
    typeof spend.cents !== "number" ||
    typeof spend.nonce !== "string"
  ) {
    return undefined;
  }
  // cast: every field was checked with typeof just above
  return spend as SpendClaims;
}

/**
 * Which elicitation modes a modern client declared: `{}` (or `form`) is a form; `url` is URL
 * mode, where the client opens a page for its person.
 */
function elicitationModes(call: McpCall): { form: boolean; url: boolean } {
  // cast: a client's declared capability, read leniently: only the presence of each mode is used
  const e = call.clientCapabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!e) return { form: false, url: false };
  const url = e.url !== undefined;
  return { form: e.form !== undefined || !url, url };
}

function refusal(quote: SpendQuote, detail: string): ApiError {
  return new ApiError("agreement_required", detail, {
    price_cents: quote.cents,
    question: agreementQuestion(quote),
  });
}

/** A spending call that must be agreed to: what it buys, at what price, and what came back. */
interface PendingSpend {
  op: Operation;
  mcp: McpContext;
  input: Record<string, unknown>;
  call: McpCall;
  nowMs: number;
  quote: SpendQuote;
  /** The question put to the owner (the price and what is bought). */
  question: string;
  /** The tool's name and the digest of its arguments, as the requestState names them. */
  tool: string;
  args: string;
  /** The claims the call sent back, only when they name this very purchase. */
  echoed?: SpendClaims;
}

/**
 * Whether this call of `op` may run now (and with what input and idempotency key), must ask the
 * owner first, or is refused (throws `agreement_required`, nothing charged).
 */
export async function settleAgreement(
  op: Operation,
  mcp: McpContext,
  input: Record<string, unknown>,
  call: McpCall,
  nowMs: number,
): Promise<Agreement> {
  const quote = op.contract.price?.(input);
  const agent = mcp.principal.kind === "agent";
  // The wallet key's cap is its owner's own yes; an agent key's never is.
  const capped = !agent && input.max_price_cents !== undefined;
  if (!quote || capped) return { kind: "go", input };
  // An agent key at or below its owner's threshold, or one that need not ask, just goes.
  if (agent && !mustAsk(mcp.principal, quote.cents)) return { kind: "go", input };
  const tool = op.contract.mcp?.name ?? op.contract.id;
  const args = digest(input);
  const echoed = spendClaims(call.requestState);
  const same =
    echoed && echoed.tool === tool && echoed.args === args && echoed.cents === quote.cents;
  const question = agreementQuestion(quote);
  const spend: PendingSpend = {
    op,
    mcp,
    input,
    call,
    nowMs,
    quote,
    question,
    tool,
    args,
    echoed: same ? echoed : undefined,
  };
  const modes = call.era === "modern" ? elicitationModes(call) : { form: false, url: false };
  if (agent && modes.url) return viaApprovalPage(spend);
  const answered = formAnswer(spend);
  if (answered) return answered;
  if (modes.form) return askWithForm(spend);
  if (agent) return { kind: "go", input };
  throw refusal(
    quote,
    `This key must ask its owner before spending. Ask them: "${question}" On their yes, call again with max_price_cents ${quote.cents}; nothing was charged.`,
  );
}

/**
 * URL mode, for an agent key: the page on kinora is the owner's yes; the client's "accept" only
 * says it was shown, so the call goes on to the runner's approval gate.
 */
async function viaApprovalPage(spend: PendingSpend): Promise<Agreement> {
  const { op, mcp, input, call, quote, question, echoed } = spend;
  if (echoed?.via === "url") {
    const answer = inputResponse(call.inputResponses, CONFIRM);
    if (answer.kind === "elicit" && answer.action !== "accept") {
      throw refusal(quote, `The owner did not agree to "${question}"; nothing was charged.`);
    }
    if (answer.kind === "elicit") return { kind: "go", input };
  }
  const policy = { publicUrl: mcp.deps.publicUrl, ttlMs: mcp.deps.config.purchaseApprovalTtlMs };
  const ctx = { principal: mcp.principal, surface: "mcp" as const };
  const shown = await approvalToShow(op.contract, input, ctx, mcp.deps, policy);
  if (shown.kind !== "pending") return { kind: "go", input };
  return {
    kind: "ask",
    result: inputRequired({
      inputRequests: {
        [CONFIRM]: inputRequired.elicitUrl({
          message: `${question} Approve or decline it on kinora.`,
          url: shown.url,
        }),
      },
      requestState: freshRequestState(spend, "url"),
    }),
  };
}

/**
 * The owner's answer to the form this very purchase asked: yes spends once (the nonce is the
 * idempotency key), no is refused; undefined when the call carries no such answer.
 */
function formAnswer({ input, call, quote, question, echoed }: PendingSpend): Agreement | undefined {
  if (!echoed || echoed.via !== undefined) return undefined;
  const answer = inputResponse(call.inputResponses, CONFIRM);
  if (answer.kind === "elicit" && answer.action === "accept" && answer.content?.agree === true) {
    return {
      kind: "go",
      input: { ...input, max_price_cents: quote.cents },
      idempotencyKey: `agree:${echoed.nonce}`,
      agreed: true,
    };
  }
  if (answer.kind === "elicit") {
    throw refusal(quote, `The owner did not agree to "${question}"; nothing was charged.`);
  }
  return undefined;
}

/** Asks the client's person, in a form, whether to pay the price. */
function askWithForm(spend: PendingSpend): Agreement {
  const { question } = spend;
  return {
    kind: "ask",
    result: inputRequired({
      inputRequests: {
        [CONFIRM]: inputRequired.elicit({
          message: question,
          requestedSchema: {
            type: "object",
            properties: {
              agree: {
                type: "boolean",
                title: "Agree to pay",
                description: question,
              },
            },
            required: ["agree"],
          },
        }),
      },
      requestState: freshRequestState(spend),
    }),
  };
}

/** A signed requestState naming this purchase, with a new nonce (and `via` for URL mode). */
function freshRequestState({ mcp, nowMs, quote, tool, args }: PendingSpend, via?: "url"): string {
  const nonce = randomBytes(12).toString("base64url");
  const spend = { tool, args, cents: quote.cents, nonce, ...(via ? { via } : {}) };
  return mintRequestState(
    mcp.deps.signer,
    mcp.principal.keyId,
    { spend } satisfies { spend: SpendClaims },
    nowMs,
  );
}

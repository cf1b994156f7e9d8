/**
 * Running one call of an operation with the policies every surface shares, in this order:
 * who may call (the auth mode), the operation's rate bucket, then — for a verified caller with
 * an idempotency key — at most once per key: the same key and input replay the
 * first outcome, another input with the same key is a 409. The outcome is surface-neutral
 * data (a status, a body, an x402 receipt, or an error body with its headers), already worded
 * for the caller's surface; each surface turns it into its own answer.
 */

import {
  type AnyContract,
  type AuthMode,
  type CallContext,
  isReply,
  type Operation,
  type RateBucket,
} from "../api/operation.js";
import { agreementQuestion } from "../api/spend.js";
import { ApiError, unauthorized } from "../domain/errors.js";
import { displayCents } from "../domain/money.js";
import { recordOf } from "../domain/records.js";
import type { Logger } from "../logger.js";
import { returnApproval, useApproval } from "../services/approvals.js";
import type { CoreDeps } from "../services/deps.js";
import {
  claimIdempotency,
  DEFAULT_IDEMPOTENCY_LIMITS,
  type IdempotentRequest,
  releaseIdempotency,
  type StoredResponse,
  storeIdempotentResponse,
} from "../services/idempotency.js";
import type { KindSurface } from "./kinds.js";
import { withRemedy } from "./remedies.js";
import { type ApprovalPolicy, askRefusal, type SpendGate, spendGate } from "./spend-approval.js";

/** What a call ended with; replays hand back exactly this. */
export type Outcome = (
  | { ok: true; status: 200 | 202; body: unknown; paymentResponse?: string }
  | { ok: false; status: number; body: Record<string, unknown>; headers: Record<string, string> }
) & {
  /** Answered from the idempotency record of an earlier call (never stored itself). */
  replayed?: true;
};

/** What a surface gives the runner: how to count a call against a rate bucket. */
interface RunOptions {
  /** Counts the call against a bucket for this surface's notion of the caller; throws a 429. */
  rate?: (bucket: RateBucket) => Promise<void>;
  /** The caller's idempotency key (REST header, MCP argument), namespaced by the surface. */
  idempotencyKey?: string;
  /** The idempotency store and in-flight lease; absent: keys are not honoured. */
  idempotency?: { deps: CoreDeps; inFlightMs: number };
  log: Logger;
  /** The job kinds the server serves: a job id not found is answered with what to do next. */
  kinds?: readonly KindSurface[];
  /**
   * Where the owner approves a purchase of a key that must ask, and for how long
   * (./spend-approval.ts); absent: such a key spends nothing on this surface.
   */
  approvals?: ApprovalPolicy;
  /** A person said yes to exactly this purchase in an MCP elicitation form (mcp/agreement.ts). */
  ownerAgreed?: boolean;
}

/**
 * A stored outcome. Records written before operations had one runner (up to a day old after an
 * upgrade) hold a REST answer or an MCP tool result instead; they replay as what they were.
 */
function storedOutcome(stored: StoredResponse): Outcome {
  const data = recordOf(JSON.parse(stored.body));
  // cast: a stored record with a boolean `ok` was written by this runner as an Outcome
  if (typeof data.ok === "boolean") return data as unknown as Outcome;
  if (Array.isArray(data.content)) {
    const body = recordOf(data.structuredContent);
    return data.isError
      ? { ok: false, status: 400, body, headers: {} }
      : { ok: true, status: 200, body };
  }
  return stored.status < 400
    ? { ok: true, status: stored.status === 202 ? 202 : 200, body: data }
    : { ok: false, status: stored.status, body: data, headers: stored.headers };
}

/** Failures a retry may cure: never kept for replay. */
const RETRYABLE = new Set(["internal", "upstream_failed", "unavailable"]);

/** Whether a call with this principal may run an operation of this auth mode (throws if not). */
export function checkCaller(mode: AuthMode, principal: CallContext["principal"]): void {
  if ((mode === "key" || mode === "wallet") && !principal) {
    throw unauthorized(
      "This operation needs a key: send Authorization: Bearer <pmk_ or pak_ key>.",
    );
  }
  if (mode === "wallet" && principal?.kind !== "wallet") {
    throw new ApiError(
      "wallet_key_required",
      "Only the wallet key (pmk_) can do this; agent keys cannot manage keys.",
    );
  }
}

/**
 * The error body of a failure, worded for the caller's surface: the detail gains the next step
 * the operation's contract (or ./remedies.ts) gives for the code.
 */
export function errorOutcome(
  err: unknown,
  ctx: CallContext,
  log: Logger,
  op?: { contract: AnyContract; input: unknown; kinds?: readonly KindSurface[] },
): Outcome {
  if (err instanceof ApiError) {
    const detail = withRemedy(err.detail, err.code, op?.contract, ctx.refer, op?.input, op?.kinds);
    return {
      ok: false,
      status: err.status,
      body: { ...err.body(), detail, request_id: ctx.requestId },
      headers: err.headers,
    };
  }
  log.error("operation failed", { request_id: ctx.requestId, err });
  return {
    ok: false,
    status: 500,
    body: {
      detail: `Internal error; retry, or quote request id ${ctx.requestId} to the operator.`,
      code: "internal",
      request_id: ctx.requestId,
    },
    headers: {},
  };
}

/**
 * Refuses a spending call whose price is above the `max_price_cents` it carries, before the
 * handler runs: nothing is charged, and the refusal carries the price and what it buys.
 */
function refuseAboveMax(contract: AnyContract, input: unknown): void {
  const max = recordOf(input).max_price_cents;
  if (typeof max !== "number" || !contract.price) return;
  const quote = contract.price(input);
  if (quote === null || quote.cents <= max) return;
  throw new ApiError(
    "price_above_max",
    `${quote.what} costs ${displayCents(quote.cents)}, above max_price_cents ${max}; nothing was charged. Ask the owner, then call again with max_price_cents ${quote.cents} or more.`,
    { price_cents: quote.cents, question: agreementQuestion(quote) },
  );
}

async function attempt(
  op: Operation,
  input: unknown,
  ctx: CallContext,
  opts: RunOptions,
): Promise<Outcome> {
  try {
    refuseAboveMax(op.contract, input);
    // cast: op.handle's input and context are its contract's; the runner validated the input against that contract
    const out = await op.handle(input as never, ctx as never);
    if (isReply(out)) {
      return {
        ok: true,
        status: out.status ?? 200,
        body: out.body,
        ...(out.paymentResponse ? { paymentResponse: out.paymentResponse } : {}),
      };
    }
    return { ok: true, status: 200, body: out };
  } catch (err) {
    return errorOutcome(err, ctx, opts.log, { contract: op.contract, input, kinds: opts.kinds });
  }
}

/**
 * The credential idempotency records are scoped to and sealed with: only one that was verified
 * (a key or token that authenticated a principal, or the operator's token on an admin route).
 * Whatever a caller sends to a route that does not authenticate (`Bearer undefined`) scopes
 * nothing — such calls are never stored or replayed — so no stored response can be reached,
 * or unsealed from a database copy, with a guessable header.
 */
function verifiedCredential(mode: AuthMode, ctx: CallContext): string | undefined {
  if (!ctx.credential) return undefined;
  return ctx.principal || mode === "admin" ? ctx.credential : undefined;
}

/** What the idempotent path does around the call: take an approval first, give it back. */
interface OnceHooks {
  /** Before the call, once the key is claimed: a refusal ends it (nothing stored). */
  before?: () => Promise<Outcome | undefined>;
  /** After a failure a retry may cure (nothing stored). */
  retryable?: () => Promise<void>;
}

/** Runs the call at most once per idempotency record: a replay answers the first outcome. */
async function runOnce(
  op: Operation,
  input: unknown,
  ctx: CallContext,
  opts: RunOptions & { idempotency: NonNullable<RunOptions["idempotency"]> },
  req: IdempotentRequest,
  hooks: OnceHooks = {},
): Promise<Outcome> {
  const { deps, inFlightMs } = opts.idempotency;
  try {
    const claim = await claimIdempotency(deps, req, { ...DEFAULT_IDEMPOTENCY_LIMITS, inFlightMs });
    if (claim.kind === "replay") return { ...storedOutcome(claim.response), replayed: true };
  } catch (err) {
    return errorOutcome(err, ctx, opts.log);
  }
  let stored = false;
  try {
    const refused = await hooks.before?.();
    if (refused) return refused;
    const outcome = await attempt(op, input, ctx, opts);
    const code = outcome.ok ? undefined : outcome.body.code;
    if (!(typeof code === "string" && RETRYABLE.has(code))) {
      await storeIdempotentResponse(deps, req, {
        status: outcome.status,
        body: JSON.stringify(outcome),
        headers: {},
      });
      stored = true;
    } else {
      await hooks.retryable?.();
    }
    return outcome;
  } finally {
    if (!stored) await releaseIdempotency(deps, req);
  }
}

/**
 * A purchase the owner approved: run once under the approval (its record replays the answer to
 * every repeat), the approval used by the one call that wins it. A call that finds it used by
 * another credential, or expired meanwhile, is refused and asks again.
 */
async function runApproved(
  op: Operation,
  input: unknown,
  ctx: CallContext,
  opts: RunOptions,
  gate: SpendGate & { kind: "approved" },
): Promise<Outcome> {
  const credential = verifiedCredential(op.contract.auth, ctx);
  const { idempotency, approvals } = opts;
  if (!credential || !idempotency || !approvals) {
    return errorOutcome(new Error("an approved purchase without its stores"), ctx, opts.log);
  }
  const { deps } = idempotency;
  const req: IdempotentRequest = {
    credential,
    key: `approval:${gate.approvalId}`,
    fingerprint: `${op.contract.id}\n${gate.purchase.digest}`,
    keyName: "approval",
  };
  return runOnce(op, input, ctx, { ...opts, idempotency }, req, {
    before: async () => {
      if (await useApproval(deps, gate.approvalId)) return undefined;
      const refusal = await askRefusal(deps, approvals, gate.purchase, ctx.surface);
      return errorOutcome(refusal, ctx, opts.log);
    },
    retryable: () => returnApproval(deps, gate.approvalId),
  });
}

/**
 * Runs `op` on an input the surface has already read (./input.ts). Never throws: every
 * refusal is an Outcome, so both surfaces answer it the same way.
 */
export async function runOperation(
  op: Operation,
  input: unknown,
  ctx: CallContext,
  opts: RunOptions,
): Promise<Outcome> {
  const { contract } = op;
  try {
    checkCaller(contract.auth, ctx.principal);
    const bucket = contract.policies?.rate;
    if (bucket && opts.rate) await opts.rate(bucket);
  } catch (err) {
    return errorOutcome(err, ctx, opts.log);
  }
  let gate: SpendGate;
  try {
    // The agent's cap first: a price above it is refused without asking the owner anything.
    refuseAboveMax(contract, input);
    const read = recordOf(input);
    const deps = opts.idempotency?.deps;
    gate = await spendGate(contract, read, ctx, deps, opts.approvals, opts.ownerAgreed);
  } catch (err) {
    return errorOutcome(err, ctx, opts.log, { contract, input, kinds: opts.kinds });
  }
  if (gate.kind === "approved") return runApproved(op, input, ctx, opts, gate);
  const key = opts.idempotencyKey;
  const credential = verifiedCredential(contract.auth, ctx);
  if (key === undefined || credential === undefined || !opts.idempotency) {
    return attempt(op, input, ctx, opts);
  }
  const req: IdempotentRequest = {
    credential,
    key,
    // A signed x402 retry is another request than the unpaid one, even with the same input.
    fingerprint: `${contract.id}\n${JSON.stringify(input)}\n${ctx.payment ?? ""}`,
    // Named as the caller sent it: a header over REST, a tool argument over MCP.
    keyName: ctx.surface === "mcp" ? "idempotency_key" : "Idempotency-Key",
  };
  return runOnce(op, input, ctx, { ...opts, idempotency: opts.idempotency }, req);
}

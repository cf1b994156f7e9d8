/**
 * One tools/call: the arguments read like any operation's input (NUL refused, the schema's
 * detail naming the field), the shared policies run (api/run.ts), and the outcome turned into
 * a tool result. A refusal is a result with `isError: true` whose text is the REST error body
 * as JSON — never `structuredContent`, which clients validate against the tool's success
 * `outputSchema` (the official SDK throws -32602 when it does not match, losing the refusal).
 * An x402 refusal is worded as the x402 MCP transport requires: `{"x402/error": {…}}`. A
 * spending call of a key that must ask its owner goes through ./agreement.ts first.
 */
import type { CallToolResult, InputRequiredResult } from "@modelcontextprotocol/server";
import { readInput } from "../api/input.js";
import type { CallContext, Operation, RateBucket, Refer } from "../api/operation.js";
import { nestedTooDeep } from "../api/validation.js";
import { inputFault } from "../domain/input-shape.js";
import { errorOutcome, type Outcome, runOperation } from "../operations/run.js";
import { decodeSettlementHeader, encodePaymentPayloadHeader } from "../payments/x402/terms.js";
import { credentialDigest, takeRate } from "../services/rate-buckets.js";
import { type Agreement, settleAgreement } from "./agreement.js";
import type { McpCall, McpContext } from "./context.js";
import { progressReporter } from "./progress.js";
import { toolInput } from "./schema.js";

/** Names an operation as the tool that does it. */
export const mcpRefer: Refer = (to) => {
  const list = Array.isArray(to) ? to : [to];
  const tool = list.find((c) => c.mcp)?.mcp;
  if (!tool) throw new Error(`no MCP tool among ${list.map((c) => c.id).join(", ")}`);
  return `the ${tool.name} tool`;
};

/**
 * A result whose text is `value` as JSON, its keys in the order of the protocol's
 * CallToolResult schema (`_meta`, `content`, `structuredContent`, `isError`) — the order the
 * SDK's result validation writes them in — so the fast path (./fast-path.ts), which skips that
 * validation, answers byte for byte what the SDK would.
 */
function text(
  value: unknown,
  extra: Pick<CallToolResult, "_meta" | "structuredContent" | "isError"> = {},
): CallToolResult {
  // Assigned in order rather than spread from conditional literals: every call makes one.
  // cast: content is assigned just below (in order: every call makes one of these)
  const result = {} as CallToolResult;
  if (extra._meta) result._meta = extra._meta;
  result.content = [{ type: "text", text: JSON.stringify(value) }];
  if (extra.structuredContent) result.structuredContent = extra.structuredContent;
  if (extra.isError) result.isError = true;
  return result;
}

/** The tool result of an outcome. */
export function toolResult(outcome: Outcome): CallToolResult {
  if (outcome.ok) {
    // cast: a success body is the contract's output, always an object
    const body = outcome.body as Record<string, unknown>;
    if (!outcome.paymentResponse) return text(body, { structuredContent: body });
    const settlement = { "x402/payment-response": decodeSettlementHeader(outcome.paymentResponse) };
    return text(body, { structuredContent: body, _meta: settlement });
  }
  const required = outcome.body.payment_required;
  if (required && typeof required === "object") {
    return text(
      { "x402/error": { code: 402, message: outcome.body.detail, data: required } },
      { isError: true },
    );
  }
  return text(outcome.body, { isError: true });
}

/**
 * The operation context of one tool call. A class, not an object literal with a getter: V8
 * builds such a literal on a slow path, ~0.5 µs on every call, and `signal` must stay a getter
 * (the request's AbortSignal is made only when something listens).
 */
class ToolCallContext implements CallContext {
  readonly surface = "mcp";
  readonly principal: CallContext["principal"];
  readonly credential: string | undefined;
  readonly requestId: string;
  readonly refer = mcpRefer;
  readonly url: string;
  payment: string | undefined = undefined;
  constructor(
    private readonly mcp: McpContext,
    readonly progress: CallContext["progress"],
  ) {
    this.principal = mcp.principal;
    this.credential = mcp.credential;
    this.requestId = mcp.requestId;
    this.url = `${mcp.deps.publicUrl}/mcp`;
  }
  get signal(): AbortSignal {
    return this.mcp.signal;
  }
}

/**
 * Runs one tool call of `op` for the caller in `mcp`; `call` is what the request carries
 * besides the arguments (the x402 payment travels in its `_meta`).
 */
export async function callTool(
  op: Operation,
  mcp: McpContext,
  rawArgs: unknown,
  call: McpCall,
): Promise<CallToolResult | InputRequiredResult> {
  const payment = call.meta?.["x402/payment"];
  const ctx = new ToolCallContext(mcp, progressReporter(call, mcp.deps.log));
  let args: Record<string, unknown>;
  try {
    args = readInput(toolInput(op.contract), rawArgs, "arguments");
    if (op.contract.policies?.payment === "x402" && payment && typeof payment === "object") {
      // Caller input as much as the arguments: nested past the limit, encoding it would
      // overflow the stack (a 500); refused as the arguments are.
      const fault = inputFault(payment);
      if (fault?.kind === "depth") {
        throw nestedTooDeep('x402 payment (`_meta["x402/payment"]`)', fault.maxDepth);
      }
      ctx.payment = encodePaymentPayloadHeader(payment);
    }
  } catch (err) {
    return toolResult(errorOutcome(err, ctx, mcp.deps.log));
  }
  const given = args.idempotency_key;
  const read = given === undefined ? args : withoutIdempotencyKey(args);
  let agreed: Agreement;
  try {
    agreed = await settleAgreement(op, mcp, read, call, Date.now());
  } catch (err) {
    return toolResult(errorOutcome(err, ctx, mcp.deps.log));
  }
  if (agreed.kind === "ask") return agreed.result;
  const { input } = agreed;
  const key = agreed.idempotencyKey ?? given;
  const outcome = await runOperation(op, input, ctx, {
    log: mcp.deps.log,
    kinds: mcp.kinds,
    // Kept apart from REST's Idempotency-Key records of the same credential.
    idempotencyKey: typeof key === "string" ? `mcp:${key}`.slice(0, 255) : undefined,
    idempotency: { deps: mcp.deps, inFlightMs: mcp.deps.config.idempotencyInFlightMs },
    approvals: { publicUrl: mcp.deps.publicUrl, ttlMs: mcp.deps.config.purchaseApprovalTtlMs },
    ownerAgreed: agreed.agreed === true,
    // Over MCP every bucket is the caller's key: assistants share their platforms' addresses.
    rate: keyRate(mcp),
  });
  return toolResult(outcome);
}

/** The arguments without the idempotency key (a copy: `args` is the caller's, read once). */
function withoutIdempotencyKey(args: Record<string, unknown>): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  for (const name in args) if (name !== "idempotency_key") read[name] = args[name];
  return read;
}

/** Counts a call against one of the caller's key's buckets (throws the 429 when over). */
function keyRate(mcp: McpContext): (bucket: RateBucket) => Promise<void> {
  return async (bucket) => {
    await takeRate(mcp.deps, bucket, credentialDigest(mcp.credential));
  };
}

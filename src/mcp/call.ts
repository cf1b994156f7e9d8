/**
 * Running one tools/call: arguments checked with the tool's zod schema (the message names the
 * field, as REST's does), an optional idempotency key honoured the way REST's Idempotency-Key
 * is, and every refusal returned as a tool result with `isError: true` whose structuredContent
 * is the REST error body. Only a malformed JSON-RPC message is a protocol error.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { invalidInput, nulInField } from "../api/validation.js";
import { ApiError } from "../domain/errors.js";
import { findNul } from "../domain/text.js";
import {
  claimIdempotency,
  DEFAULT_IDEMPOTENCY_LIMITS,
  type IdempotentRequest,
  releaseIdempotency,
  storeIdempotentResponse,
} from "../services/idempotency.js";
import { spendBucket, tooMany } from "../services/rate-buckets.js";
import type { McpContext } from "./context.js";
import type { ToolDefinition, ToolReply } from "./tool.js";

const TOPUP_HINT =
  " Over MCP, add money with create_top_up_link (a card checkout link for the wallet owner) or top_up_with_usdc.";

function result(structured: Record<string, unknown>, extra: Partial<CallToolResult> = {}) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...extra,
  } satisfies CallToolResult;
}

/** A refusal as a tool result: the REST error body (an x402 refusal: the PaymentRequired). */
export function errorResult(err: unknown, ctx: McpContext): CallToolResult {
  if (err instanceof ApiError) {
    const pr = err.extra.payment_required;
    if (pr && typeof pr === "object")
      return result(pr as Record<string, unknown>, { isError: true });
    const body: Record<string, unknown> = { ...err.body(), request_id: ctx.requestId };
    if (body.needs_topup) body.detail = `${err.detail}${TOPUP_HINT}`;
    return result(body, { isError: true });
  }
  ctx.platform.log.error("mcp tool crashed", { request_id: ctx.requestId, err });
  return result(
    {
      detail: `Internal error; retry, or quote request id ${ctx.requestId} to the operator.`,
      code: "internal",
      request_id: ctx.requestId,
    },
    { isError: true },
  );
}

function success(r: ToolReply): CallToolResult {
  return result(r.structured, r.meta ? { _meta: r.meta } : {});
}

function parseArgs(tool: ToolDefinition, raw: unknown) {
  const nul = findNul(raw);
  if (nul) throw nulInField(nul);
  const parsed = tool.input.safeParse(raw ?? {});
  if (!parsed.success) throw invalidInput(parsed.error, "arguments");
  return parsed.data as Record<string, unknown>;
}

/** Spending tools count against the key's spending limit, the same bucket as REST spending. */
async function spendAllowed(tool: ToolDefinition, ctx: McpContext) {
  const cfg = ctx.platform.config.rateLimits;
  if (!tool.spends || !cfg.enabled) return;
  const d = await ctx.platform.rateLimiter.take(spendBucket(ctx.credential), cfg.spend);
  if (!d.ok) throw tooMany(d, cfg.spend.windowMs);
}

export async function callTool(
  tool: ToolDefinition,
  ctx: McpContext,
  rawArgs: unknown,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  let args: Record<string, unknown>;
  try {
    args = parseArgs(tool, rawArgs);
    await spendAllowed(tool, ctx);
  } catch (err) {
    return errorResult(err, ctx);
  }
  const key = tool.spends ? (args.idempotency_key as string | undefined) : undefined;
  if (!key) return run(tool, ctx, args, meta);
  const { idempotency_key: _key, ...rest } = args;
  const req: IdempotentRequest = {
    credential: ctx.credential,
    // Kept apart from REST's Idempotency-Key records of the same credential.
    key: `mcp:${key}`.slice(0, 255),
    fingerprint: `mcp ${tool.name}\n${JSON.stringify(rest)}\n${JSON.stringify(meta?.["x402/payment"] ?? null)}`,
  };
  try {
    const claim = await claimIdempotency(ctx.platform, req, {
      ...DEFAULT_IDEMPOTENCY_LIMITS,
      inFlightMs: ctx.platform.config.idempotencyInFlightMs,
    });
    if (claim.kind === "replay") return JSON.parse(claim.response.body) as CallToolResult;
  } catch (err) {
    return errorResult(err, ctx);
  }
  let stored = false;
  try {
    const out = await run(tool, ctx, args, meta);
    const code = (out.structuredContent as { code?: string } | undefined)?.code;
    // Like REST: a failure the caller should retry (internal, provider down) is not kept.
    if (
      !(
        out.isError &&
        (code === "internal" || code === "upstream_failed" || code === "unavailable")
      )
    ) {
      await storeIdempotentResponse(ctx.platform, req, {
        status: out.isError ? 400 : 200,
        body: JSON.stringify(out),
        headers: {},
      });
      stored = true;
    }
    return out;
  } finally {
    if (!stored) await releaseIdempotency(ctx.platform, req);
  }
}

async function run(
  tool: ToolDefinition,
  ctx: McpContext,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  try {
    return success(await tool.run(ctx, args, meta));
  } catch (err) {
    return errorResult(err, ctx);
  }
}

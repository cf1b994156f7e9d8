/**
 * A tool is a thin adapter: a name, what it costs and does, a zod input (the REST field
 * names), the REST response schema as its output, all four annotation hints, and a run
 * function that calls the same service the REST route calls.
 */
import type { z } from "@hono/zod-openapi";
import type { McpContext } from "./context.js";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a run returns: the structured content (the REST response object) and result `_meta`. */
export interface ToolReply {
  structured: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: z.ZodType;
  annotations: ToolAnnotations;
  /** Spending tools: take `idempotency_key` and run at most once per key. */
  spends?: boolean;
  run(
    ctx: McpContext,
    args: z.infer<I>,
    meta: Record<string, unknown> | undefined,
  ): Promise<ToolReply>;
}

/** Keeps each tool's argument types while collecting them in one list. */
export function defineTool<I extends z.ZodObject>(def: ToolDefinition<I>): ToolDefinition {
  return def as unknown as ToolDefinition;
}

export const reply = (structured: object, meta?: Record<string, unknown>): ToolReply => ({
  structured: structured as Record<string, unknown>,
  ...(meta ? { meta } : {}),
});

/** Annotations of free reads (`get_…`, `list_…`, `quote_…`). */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

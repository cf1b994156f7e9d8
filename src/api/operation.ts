/**
 * One definition per operation. A **contract** says what an operation is — its id, who may call
 * it, its input and output schemas, the error codes it can answer, its policies, and how it
 * appears on each surface (a REST method and path; an MCP tool's name, title, description and
 * hints). An **operation** is a contract plus the handler that maps its input onto a service
 * call. The REST routes, the OpenAPI document, the MCP tools and the client's types are all
 * derived from these; the policies (NUL refusal, validation, rate buckets, idempotency, the
 * error body) wrap an operation once, in ./run.ts, for every surface.
 *
 * Contracts import only schemas and the domain, so a client can use them without the services.
 */
import type { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../domain/error-codes.js";
import type { Principal } from "../domain/principal.js";
import type { SpendQuote } from "./spend.js";

/**
 * Who may call: nobody needs a key (`none`); a key is optional (`optional`: without one the
 * operation does something else, e.g. a restore paid by checkout); a wallet or agent key
 * (`key`); the wallet key only (`wallet`); the operator's admin token (`admin`).
 */
export type AuthMode = "none" | "optional" | "key" | "wallet" | "admin";

/** The principal a handler gets for each auth mode. */
export type PrincipalFor<A extends AuthMode> = A extends "key"
  ? Principal
  : A extends "wallet"
    ? Principal & { kind: "wallet" }
    : A extends "optional"
      ? Principal | undefined
      : undefined;

/** The buckets a call counts against (see RateLimitsConfig): per credential, else per address. */
export type RateBucket = "spend" | "create" | "quote";

/** What the shared runner applies to every call of an operation, on every surface. */
export interface Policies {
  /**
   * Moves money or makes something the caller pays for. Over MCP such a tool takes an
   * `idempotency_key` argument (REST takes `Idempotency-Key` on every POST).
   */
  spends?: boolean;
  /** The rate bucket each call counts against, besides the per-key bucket of every keyed call. */
  rate?: RateBucket;
  /** An x402 v2 payment may travel with the call (REST headers, MCP `_meta`). */
  payment?: "x402";
}

/** The MCP tool's four hints; they default to the worst case, so every tool sets all four. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Annotations of free reads (`get_…`, `list_…`, `quote_…`). */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** How an operation appears over REST: method, path, names, and its OpenAPI entry. */
export interface RestBinding {
  /** GET reads (input in the path and query); POST and PATCH take a JSON body. */
  method: "get" | "post" | "patch";
  /** OpenAPI path template, e.g. `/cloud/jobs/{id}/start`. */
  path: string;
  /**
   * Input fields that go by another name over REST: path parameters (`job_id` → `id`) and query
   * parameters (`wait_seconds` → `wait`). Path parameters are the names in `path`; on a GET every
   * other field is a query parameter; on a POST the rest is the JSON body.
   */
  names?: Readonly<Record<string, string>>;
  tags: readonly string[];
  summary: string;
  description: string;
  /** A second success answer (x402: 202 paid, waiting for the chain). */
  accepted?: { description: string; schema: z.ZodType };
  /** What the 200 answer is, in the OpenAPI document. */
  answer?: string;
  /** Response headers documented on the 200 answer. */
  headers?: Readonly<Record<string, string>>;
}

/** How an operation appears as an MCP tool: name, title, description and hints. */
export interface McpBinding {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /**
   * The tool that follows the job this call creates or starts (`get_restore`): the call may
   * answer as an MCP task (2025-11-25 tasks, the 2026-07-28 Tasks extension), which that tool
   * polls. A job kind's own tool (src/kinds/kind.ts checks).
   */
  followedBy?: string;
}

/** One operation's definition, from which REST, OpenAPI, MCP and the client derive. */
export interface Contract<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
  A extends AuthMode = AuthMode,
> {
  /** The operationId, in camelCase (`startRestore`). */
  id: string;
  auth: A;
  input: I;
  output: O;
  /** Codes this operation answers besides those every call can (validation, auth, rate). */
  errors: readonly ErrorCode[];
  policies?: Policies;
  /**
   * What the caller should do after a refusal with one of these codes, named for the caller's
   * surface; appended to the error's detail. Codes every spending operation shares (a balance
   * too low) have their remedy in ./remedies.ts.
   */
  remedies?: Partial<Record<ErrorCode, Remedy>>;
  /**
   * How this operation's own refusals read, as its services word them: the documentation's
   * example of each code (codes worded the same everywhere need none).
   */
  examples?: Partial<Record<ErrorCode, string>>;
  /**
   * What a spending call takes from the balance, from its input alone; null when this call
   * charges nothing there (a job paid by checkout). With it the input has `max_price_cents`
   * (./spend.ts): the runner refuses a higher price before the handler runs, and MCP asks a key
   * that must ask its owner first. May throw an ApiError when the input has no price (over a
   * service limit): that refusal is the answer, before any price is compared.
   */
  price?: (input: z.output<I>) => SpendQuote | null;
  rest?: RestBinding;
  mcp?: McpBinding;
}

/** The next step after a refusal, given how the caller names operations and what it sent. */
export type Remedy = (refer: Refer, input: Readonly<Record<string, unknown>>) => string;

/** Keeps a contract's schema types while checking its shape. */
export function defineContract<I extends z.ZodObject, O extends z.ZodType, A extends AuthMode>(
  c: Contract<I, O, A>,
): Contract<I, O, A> {
  return c;
}

/** A contract of any schemas (lists of operations, surfaces). */
// cast: a list holds contracts of every schema; their handlers take their own input (contravariant), so no common supertype but any
// biome-ignore lint/suspicious/noExplicitAny: collections hold contracts of every schema type
export type AnyContract = Contract<any, any, AuthMode>;

export type InputOf<C extends AnyContract> = z.output<C["input"]>;
/** What a handler returns and a client receives (dates already strings). */
export type OutputOf<C extends AnyContract> = z.input<C["output"]>;

/**
 * How the answer names another operation for the caller's surface: over REST
 * `POST /cloud/jobs/rj_…/start`, over MCP `start_restore`. Given several contracts, the first
 * the surface has is named (a checkout link is its own REST call, part of start_restore over MCP).
 */
export type Refer = (
  to: AnyContract | readonly AnyContract[],
  args?: Readonly<Record<string, string>>,
) => string;

/** What every call carries, whatever the surface. */
export interface CallContext<A extends AuthMode = AuthMode> {
  surface: "rest" | "mcp";
  principal: PrincipalFor<A>;
  /** The caller's secret (never stored): scopes idempotency records and rate buckets. */
  credential: string | undefined;
  requestId: string;
  signal: AbortSignal;
  refer: Refer;
  /** x402 v2: the payment payload in its base64 header form, when one was sent. */
  payment?: string;
  /** Where this call was made, as a public absolute URL (x402 names it as the resource). */
  url: string;
  /**
   * Reports how far a long call got (0..1, and a few words): MCP progress notifications when
   * the client sent a progressToken; absent when nobody listens.
   */
  progress?: (fraction: number, message: string) => void;
}

/** A success with something besides the body: another status, an x402 receipt. */
export interface Reply<O> {
  readonly reply: true;
  body: O;
  status?: 200 | 202;
  /** x402 v2 settlement receipt, base64 (REST: PAYMENT-RESPONSE; MCP: `_meta`). */
  paymentResponse?: string;
}

/** A success answer with something besides the body (another status, an x402 receipt). */
export function reply<O>(body: O, extra: Omit<Reply<O>, "reply" | "body"> = {}): Reply<O> {
  return { reply: true, body, ...extra };
}

/** Whether a handler's result is a Reply rather than the bare body. */
export function isReply(value: unknown): value is Reply<unknown> {
  return typeof value === "object" && value !== null && "reply" in value && value.reply === true;
}

export type Handler<C extends AnyContract, D> = (
  deps: D,
  input: InputOf<C>,
  ctx: CallContext<C["auth"]>,
) => Promise<OutputOf<C> | Reply<OutputOf<C>>>;

/** A contract bound to its handler and the dependencies it runs with: ready to serve. */
export interface Operation<C extends AnyContract = AnyContract> {
  contract: C;
  handle(input: InputOf<C>, ctx: CallContext<C["auth"]>): Promise<unknown>;
}

/**
 * A contract with its handler, not yet bound to dependencies: call it with them to get the
 * Operation (the feature that serves it does, once). Its `contract` is readable before that,
 * so a list of implementations says which operations it will serve.
 */
export interface Implementation<C extends AnyContract, D> {
  (deps: D): Operation<C>;
  readonly contract: C;
}

/** The implementation of a contract: the handler maps the input onto one service call. */
export function implement<C extends AnyContract, D>(
  contract: C,
  handler: Handler<C, D>,
): Implementation<C, D> {
  const bind = (deps: D): Operation<C> => ({
    contract,
    handle: (input, ctx) => handler(deps, input, ctx),
  });
  return Object.assign(bind, { contract });
}

/**
 * The owner's pages as a client of the operations. Every action of the console and the consent
 * page runs an operation — the one REST serves — through the shared runner
 * (operations/run.ts), as the wallet key the browser signed in with: the same caller check,
 * input reading (NUL, bidirectional controls, the schema), rate buckets (counted by REST's own
 * rule, http/operation-rate.ts, and the key's bucket once per request, as every keyed REST
 * request is), idempotency records (a form's token is its Idempotency-Key) and refusals, worded
 * as REST words them. The pages only turn forms into input and outputs into HTML.
 */
import type { Context } from "hono";
import { readInput } from "../api/input.js";
import type {
  AnyContract,
  CallContext,
  Operation,
  OutputOf,
  RateBucket,
} from "../api/operation.js";
import { ApiError } from "../domain/errors.js";
import type { Principal } from "../domain/principal.js";
import type { AppEnv } from "../http/env.js";
import { clientAddress } from "../http/middleware/rate-limit.js";
import { restRefer } from "../http/operation-doc.js";
import type { Logger } from "../logger.js";
import type { KindSurface } from "../operations/kinds.js";
import { errorOutcome, type Outcome, runOperation } from "../operations/run.js";

/** Where the runner keeps idempotency records (REST's store and in-flight lease). */
type Idempotency = NonNullable<Parameters<typeof runOperation>[3]["idempotency"]>;

/** The operations and REST's policies, as composition hands them to the pages. */
export interface PagesSurface {
  /** Every operation the server serves (features' routes context). */
  operations: readonly Operation[];
  /** The job kinds the server serves, in mount order. */
  kinds: readonly KindSurface[];
  /** A kind's pictures of a done job (`{job_id}` → `{still, frames}`), where it makes them. */
  pictures(kind: KindSurface): AnyContract | undefined;
  /** The principal a key names, as `Authorization: Bearer` checks it; throws its 401. */
  authenticate(secret: string): Promise<Principal>;
  rates: {
    /** A request made with a caller's key counts against the key's own bucket; throws the 429. */
    key(credential: string): Promise<void>;
    /** An operation's bucket, counted as REST counts it; throws the 429. */
    bucket(bucket: RateBucket, credential: string | undefined, address: string): Promise<void>;
    /** One try of a secret from `address` (a sign-in); when over: the seconds to wait. */
    signIn(address: string): Promise<{ ok: true } | { ok: false; retryAfterSec: number }>;
  };
  idempotency: Idempotency;
  log: Logger;
  publicUrl: string;
  trustProxy: boolean;
}

/** The signed-in owner as the operations see the caller: the wallet key and its principal. */
export interface Caller {
  principal: Principal & { kind: "wallet" };
  /** The wallet key (from the session, where it is sealed): scopes buckets and records. */
  credential: string;
}

/** A refused call, as REST answers it: status, code and detail (with its next step). */
export interface Refusal {
  ok: false;
  status: number;
  code: string;
  detail: string;
  /** Seconds to wait, for a 429. */
  retryAfter?: string;
}

/** What a call answered: the operation's output, or its refusal. */
export type Answer<C extends AnyContract> =
  | { ok: true; body: OutputOf<C>; replayed: boolean }
  | Refusal;

/** One call: the operation, its input, who calls, and how the form names its fields. */
export interface Call<C extends AnyContract> {
  contract: C;
  input: Record<string, unknown>;
  caller?: Caller | undefined;
  /** The form's idempotency token: sent again, the first answer is replayed, nothing redone. */
  token?: string | undefined;
  /** How the form labels the operation's fields, for its refusals (`limit_cents` → "Limit"). */
  fields?: Readonly<Record<string, string>> | undefined;
  /**
   * The origin the call is made at, when not PUBLIC_URL's: the one the owner is signed in at
   * (a top-up's return pages lead back there). Checked by the page: never a forged Host.
   */
  origin?: string | null | undefined;
}

/** The operation the server serves for `contract`, or undefined (its feature is not mounted). */
export function served(surface: PagesSurface, contract: AnyContract): Operation | undefined {
  return surface.operations.find((op) => op.contract.id === contract.id);
}

/**
 * The caller a wallet key names now (a session's key is checked on every request, as a key is
 * over REST), or null when it names no wallet key — of `walletId`, when given.
 */
export async function callerOf(
  surface: PagesSurface,
  session: { walletId?: string; walletKey: string },
): Promise<Caller | null> {
  const principal = await surface.authenticate(session.walletKey).catch((err: unknown) => {
    if (err instanceof ApiError) return null;
    throw err;
  });
  if (principal?.kind !== "wallet") return null;
  if (session.walletId !== undefined && principal.walletId !== session.walletId) return null;
  return { principal, credential: session.walletKey };
}

/** `detail` with the operation's field names as the form labels them ("limit_cents: …"). */
export function inFormWords(detail: string, fields: Readonly<Record<string, string>> = {}) {
  const m = /^([a-z_]+)([.:])/.exec(detail);
  const label = m?.[1] ? fields[m[1]] : undefined;
  if (!m?.[1] || label === undefined) return detail;
  const rest = detail.slice(m[1].length);
  return `${label}${rest.startsWith(".") ? rest.slice(rest.indexOf(":")) : rest}`;
}

function refusalOf(outcome: Outcome & { ok: false }, fields: Call<AnyContract>["fields"]) {
  const refusal: Refusal = {
    ok: false,
    status: outcome.status,
    code: String(outcome.body.code),
    detail: inFormWords(String(outcome.body.detail), fields ?? {}),
  };
  const wait = outcome.headers["Retry-After"];
  return wait === undefined ? refusal : { ...refusal, retryAfter: wait };
}

/**
 * Runs one call of `call.contract`'s operation as REST would run it for the same key and
 * input, from the page request `c`. Never throws for a refusal: it is the answer.
 */
export async function callOperation<C extends AnyContract>(
  surface: PagesSurface,
  c: Context<AppEnv>,
  call: Call<C>,
): Promise<Answer<C>> {
  const op = served(surface, call.contract);
  if (!op) throw new Error(`the pages call ${call.contract.id}, which this server does not serve`);
  const ctx: CallContext = {
    surface: "rest",
    // cast: the page caller's principal is of the contract's auth mode (the console requires a session)
    principal: call.caller?.principal as never,
    credential: call.caller?.credential,
    requestId: c.get("requestId"),
    signal: c.req.raw.signal,
    refer: restRefer,
    url: `${call.origin ?? surface.publicUrl}${c.req.path}`,
  };
  let input: unknown;
  try {
    input = readInput(call.contract.input, call.input, "form");
  } catch (err) {
    // cast: errorOutcome always answers a refusal (ok: false)
    return refusalOf(errorOutcome(err, ctx, surface.log) as Outcome & { ok: false }, call.fields);
  }
  const address = clientAddress(c, surface.trustProxy);
  const outcome = await runOperation(op, input, ctx, {
    log: surface.log,
    kinds: surface.kinds,
    ...(call.token ? { idempotencyKey: `console:${call.token}`.slice(0, 255) } : {}),
    idempotency: surface.idempotency,
    rate: (bucket) => surface.rates.bucket(bucket, call.caller?.credential, address),
  });
  if (!outcome.ok) return refusalOf(outcome, call.fields);
  // cast: an ok answer of contract C is C's output (runOperation ran C)
  return { ok: true, body: outcome.body as OutputOf<C>, replayed: outcome.replayed === true };
}

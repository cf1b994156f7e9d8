/**
 * The REST surface of an operation: one route per contract with a `rest` binding. It reads the
 * path, query and JSON body under their REST names, authenticates by the contract's auth mode,
 * and hands the call to the shared runner (api/run.ts); the outcome becomes the JSON answer.
 * Transport concerns stay here: body size, JSON content type, the Idempotency-Key header,
 * rate-limit headers, x402 headers, and how an answer names other operations
 * (`POST /cloud/jobs/rj_…/start`).
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { readInput } from "../api/input.js";
import type { AnyContract, CallContext, Operation, RestBinding } from "../api/operation.js";
import type { Config } from "../config.js";
import { ApiError, invalidRequest } from "../domain/errors.js";
import type { EventHub } from "../domain/events.js";
import type { KindSurface } from "../operations/kinds.js";
import { checkCaller, type Outcome, runOperation } from "../operations/run.js";
import type { CoreDeps } from "../services/deps.js";
import { rateHeaders } from "../services/rate-buckets.js";
import type { RateLimiter } from "../services/rate-limit.js";
import type { AppEnv } from "./env.js";
import { callerOf } from "./middleware/auth.js";
import { smallBody } from "./middleware/body-limit.js";
import { jsonBodiesOnly } from "./middleware/json-only.js";
import { clientAddress } from "./middleware/rate-limit.js";
import { documentOperation, restName, restRefer, restShape } from "./operation-doc.js";
import { takeOperationRate } from "./operation-rate.js";
import type { Router } from "./router.js";

/** What the REST surface needs from the platform. */
interface RestSurfaceDeps extends CoreDeps {
  config: Pick<
    Config,
    "rateLimits" | "trustProxy" | "idempotencyInFlightMs" | "purchaseApprovalTtlMs"
  >;
  rateLimiter: RateLimiter;
  events: EventHub;
  adminToken: string;
  publicUrl: string;
}

/** Query strings are text: numbers and booleans are read as such before the schema runs. */
function typedQuery(value: string): unknown {
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value === "true" || value === "false") return value === "true";
  return value;
}

async function jsonBody(c: Context<AppEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest(
      "The request body is not valid JSON; send a JSON object with Content-Type: application/json.",
    );
  }
}

/**
 * What reading one route's input needs, built once when the route is mounted: zod's pick and
 * omit build a new schema (and its compiled parser) on every call, which cost a cheap GET
 * more than its database read.
 */
interface RestReader {
  shape: ReturnType<typeof restShape>;
  pathSchema: AnyContract["input"];
  otherSchema: AnyContract["input"];
}

function restReader(contract: AnyContract, rest: RestBinding): RestReader {
  const shape = restShape(contract, rest);
  const pick = Object.fromEntries(shape.path.map((f) => [f, true] as const));
  return {
    shape,
    pathSchema: contract.input.pick(pick),
    otherSchema: shape.path.length === 0 ? contract.input : contract.input.omit(pick),
  };
}

/** The input under its canonical names: a bad path id is a 404, like an unknown one. */
async function readRestInput(c: Context<AppEnv>, rest: RestBinding, reader: RestReader) {
  const { shape, pathSchema, otherSchema } = reader;
  const pathRaw = Object.fromEntries(shape.path.map((f) => [f, c.req.param(restName(rest, f))]));
  if (shape.path.length > 0) {
    try {
      readInput(pathSchema, pathRaw, "path");
    } catch {
      throw new ApiError("not_found", "Not found: the id in the path does not name anything here.");
    }
  }
  const named = (field: string) => restName(rest, field);
  if (rest.method === "get") {
    const query: Record<string, unknown> = {};
    for (const f of shape.query) {
      const value = c.req.query(restName(rest, f));
      if (value !== undefined) query[f] = typedQuery(value);
    }
    return { ...readInput(otherSchema, query, "query string", named), ...pathRaw };
  }
  return { ...readInput(otherSchema, await jsonBody(c), "request body", named), ...pathRaw };
}

function answer(c: Context<AppEnv>, outcome: Outcome, extra: Record<string, string>) {
  const headers = outcome.ok ? { ...extra } : { ...extra, ...outcome.headers };
  if (outcome.replayed) headers["Idempotent-Replayed"] = "true";
  if (outcome.ok && outcome.paymentResponse) {
    headers["PAYMENT-RESPONSE"] = outcome.paymentResponse;
  }
  // cast: a success body is the contract's output object; a refusal's is the error body
  return c.json(outcome.body as object, outcome.status as ContentfulStatusCode, headers);
}

/** Mounts one operation's REST route and documents it. */
function mountOperation(
  app: Router,
  op: Operation,
  deps: RestSurfaceDeps,
  kinds: readonly KindSurface[],
) {
  const { contract } = op;
  const rest = contract.rest;
  if (!rest) return;
  documentOperation(app, contract, rest, kinds);
  const honoPath = rest.path.replace(/\{([^}]+)\}/g, ":$1");
  const middleware = rest.method === "get" ? [] : [smallBody, jsonBodiesOnly];
  const reader = restReader(contract, rest);
  app.on(rest.method.toUpperCase(), [honoPath], ...middleware, async (c) => {
    const caller = await callerOf(c, contract.auth, deps);
    c.set("principal", caller.principal);
    // Who may call is answered before what was sent: a 401 says more than a 400 without a key.
    checkCaller(contract.auth, caller.principal);
    const input = await readRestInput(c, rest, reader);
    const ctx: CallContext = {
      surface: "rest",
      // cast: the route's auth middleware gave a principal of the contract's auth mode
      principal: caller.principal as never,
      credential: caller.credential,
      requestId: c.get("requestId"),
      signal: c.req.raw.signal,
      refer: restRefer,
      url: `${deps.publicUrl}${c.req.path}`,
      ...(contract.policies?.payment === "x402"
        ? { payment: c.req.header("payment-signature") }
        : {}),
    };
    let tightest = c.get("rateDecision");
    const outcome = await runOperation(op, input, ctx, {
      log: deps.log,
      kinds,
      idempotencyKey: rest.method === "get" ? undefined : c.req.header("idempotency-key"),
      idempotency: { deps, inFlightMs: deps.config.idempotencyInFlightMs },
      approvals: { publicUrl: deps.publicUrl, ttlMs: deps.config.purchaseApprovalTtlMs },
      rate: async (bucket) => {
        const address = clientAddress(c, deps.config.trustProxy);
        const d = await takeOperationRate(deps, bucket, caller.credential, address);
        if (d && (!tightest || d.remaining < tightest.remaining)) tightest = d;
      },
    });
    const extra: Record<string, string> = tightest ? rateHeaders(tightest) : {};
    if (contract.policies?.payment === "x402") {
      extra["Access-Control-Expose-Headers"] = "PAYMENT-REQUIRED, PAYMENT-RESPONSE";
    }
    return answer(c, outcome, extra);
  });
}

/**
 * Mounts every operation that has a REST binding; `kinds` are the job kinds the server serves
 * (a job id not found is answered with the read or list that finds it).
 */
export function mountOperations(
  app: Router,
  ops: readonly Operation[],
  deps: RestSurfaceDeps,
  kinds: readonly KindSurface[] = [],
) {
  for (const op of ops) mountOperation(app, op, deps, kinds);
}

/**
 * The x402 gateway: turns a PAYMENT-SIGNATURE header into a settled (or refused) USDC
 * transfer through the configured facilitator. It holds no state and touches no database:
 * the caller dedupes on (payer, nonce) and tx hash, credits the wallet, and confirms the
 * transfer on chain with confirmTransfer() before crediting.
 *
 * Outcomes and what the caller should answer:
 *   settled     → confirm on chain, then 200 (or 202 while confirmations are missing)
 *   pending     → broadcast but not mined yet: 202, confirm later
 *   refused     → 402 with `paymentRequired` (nothing was taken)
 *   unavailable → the facilitator could not be asked; nothing happened, retry later (503)
 *   unknown     → settle was sent but its outcome is unknown (timeout, 5xx): persist payer,
 *                 nonce and any tx hash, answer 202, and reconcile on chain
 */
import {
  type FacilitatorClient,
  FacilitatorTimeoutError,
  HTTPFacilitatorClient,
  x402ResourceServer,
} from "@x402/core/server";
import { SettleError, VerifyError } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { type Address, type Hex, isHex } from "viem";
import { isRecord } from "../../domain/records.js";
import type { X402Config } from "./config.js";
import { checkPayload } from "./payload.js";
import { describeRefusal } from "./reasons.js";
import {
  buildPaymentRequired,
  buildRequirements,
  decodePaymentSignature,
  encodeSettlementHeader,
  MalformedPaymentError,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  type SettleResponse,
  type X402Resource,
} from "./terms.js";

/** How settling a payment ended: settled, pending on the chain, or refused. */
export type SettleOutcome =
  | {
      kind: "settled";
      txHash: Hex;
      payer: Address;
      nonce: Hex;
      amountAtomic: string;
      settlement: SettleResponse;
    }
  | {
      kind: "pending";
      txHash: Hex;
      payer: Address;
      nonce: Hex;
      amountAtomic: string;
      settlement: SettleResponse;
    }
  | {
      kind: "refused";
      /** One sentence for the payer (the 402 `detail`). */
      reason: string;
      /** Machine-readable code, e.g. invalid_exact_evm_nonce_already_used. */
      code: string;
      payer?: Address;
      nonce?: Hex;
      /** Set when a transaction was mined but reverted or did not match. */
      txHash?: Hex;
      /** Fresh terms carrying the refusal as `error`, for the 402 answer. */
      paymentRequired: PaymentRequired;
    }
  | { kind: "unavailable"; reason: string; internal: string }
  | {
      kind: "unknown";
      reason: string;
      internal: string;
      txHash?: Hex;
      payer: Address;
      nonce: Hex;
      amountAtomic: string;
    };

/** What a test may replace in the gateway (the facilitator, the RPC). */
export interface X402GatewayOptions {
  /**
   * Replaces the HTTP facilitator client (tests, or a facilitator needing per-request auth
   * such as Coinbase CDP's signed JWTs). HTTPFacilitatorClient always uses global fetch.
   */
  facilitatorClient?: FacilitatorClient;
  /** Clock for the expiry check; injected so tests need not sleep. */
  now?: () => Date;
}

/** USDC top-ups over x402 v2: the terms, verification and settlement. */
export interface X402Gateway {
  readonly config: X402Config;
  /** The 402 terms for a top-up; `error` explains why a previous attempt was refused. */
  paymentRequired(amountCents: number, resource: X402Resource, error?: string): PaymentRequired;
  settle(
    paymentHeader: string,
    amountCents: number,
    resource: X402Resource,
  ): Promise<SettleOutcome>;
}

const UNAVAILABLE =
  "USDC payments are unavailable right now; nothing was taken, try again shortly.";
const UNKNOWN =
  "The payment was sent for settlement but its result is not known yet; it will be credited once it confirms on chain.";

/** A gateway using the configured facilitator (or the one given). */
export function createX402Gateway(cfg: X402Config, options: X402GatewayOptions = {}): X402Gateway {
  const facilitator = options.facilitatorClient ?? httpFacilitator(cfg);
  const server = new x402ResourceServer(facilitator).register(cfg.network, new ExactEvmScheme());
  let ready: Promise<void> | undefined;
  const ctx: GatewayContext = {
    cfg,
    server,
    now: options.now ?? (() => new Date()),
    // Learns once what the facilitator supports; a failure is retried on the next payment.
    ensureReady: () => {
      ready ??= server.initialize().then(() => {
        if (!server.getSupportedKind(2, cfg.network, "exact")) {
          throw new Error(`facilitator does not support exact payments on ${cfg.network}`);
        }
      });
      ready.catch(() => {
        ready = undefined;
      });
      return ready;
    },
  };
  return {
    config: cfg,
    paymentRequired: (amountCents, resource, error) =>
      buildPaymentRequired(cfg, amountCents, resource, error),
    settle: (paymentHeader, amountCents, resource) =>
      settleTopup(ctx, paymentHeader, amountCents, resource),
  };
}

interface GatewayContext {
  cfg: X402Config;
  server: x402ResourceServer;
  now: () => Date;
  ensureReady: () => Promise<void>;
}

async function settleTopup(
  ctx: GatewayContext,
  paymentHeader: string,
  amountCents: number,
  resource: X402Resource,
): Promise<SettleOutcome> {
  const requirements = buildRequirements(ctx.cfg, amountCents);
  const refuse = (code: string, extra: RefusalExtra = {}) =>
    refused(ctx.cfg, amountCents, resource, code, extra);
  let payload: PaymentPayload;
  try {
    payload = decodePaymentSignature(paymentHeader);
  } catch (err) {
    if (!(err instanceof MalformedPaymentError)) throw err;
    return refuse("malformed_payment", { message: err.message });
  }
  const check = checkPayload(payload, requirements, ctx.now().getTime() / 1000);
  if (!check.ok) return refuse(check.code, { payer: check.payer, nonce: check.nonce });
  const who = { payer: check.payer, nonce: check.nonce };
  // The SDK's own deep comparison is the final word on whether the terms match.
  const matched = ctx.server.findMatchingRequirements([requirements], payload);
  if (!matched) return refuse("terms_mismatch", who);

  try {
    await ctx.ensureReady();
  } catch (err) {
    return unavailable(err);
  }
  const verified = await verify(ctx.server, payload, matched);
  if (verified.kind === "unavailable") return verified;
  if (verified.kind === "invalid") return refuse(verified.code, who);
  const settled = await settle(ctx.server, payload, matched, who);
  if (settled.kind === "failed") return refuse(settled.code, { ...who, txHash: settled.txHash });
  return settled;
}

type RefusalExtra = { payer?: Address; nonce?: Hex; txHash?: Hex; message?: string };

function refused(
  cfg: X402Config,
  amountCents: number,
  resource: X402Resource,
  code: string,
  { message, ...who }: RefusalExtra,
): SettleOutcome {
  const reason = describeRefusal(code, message);
  const paymentRequired = buildPaymentRequired(cfg, amountCents, resource, reason);
  return { kind: "refused", reason, code, ...who, paymentRequired };
}

/** The PAYMENT-RESPONSE header for a settled or pending outcome. */
export function encodeSettlementResponse(
  outcome: Extract<SettleOutcome, { kind: "settled" | "pending" }>,
): string {
  return encodeSettlementHeader(outcome.settlement);
}

function httpFacilitator(cfg: X402Config): HTTPFacilitatorClient {
  const headers = cfg.facilitatorHeaders;
  return new HTTPFacilitatorClient({
    url: cfg.facilitatorUrl,
    timeoutMs: cfg.facilitatorTimeoutMs ?? 30_000,
    ...(headers
      ? {
          createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
        }
      : {}),
  });
}

type VerifyStep =
  | { kind: "valid" }
  | { kind: "invalid"; code: string }
  | Extract<SettleOutcome, { kind: "unavailable" }>;

async function verify(
  server: x402ResourceServer,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): Promise<VerifyStep> {
  try {
    const result = await server.verifyPayment(payload, requirements);
    if (result.isValid) return { kind: "valid" };
    return { kind: "invalid", code: result.invalidReason ?? "verification_failed" };
  } catch (err) {
    // A 4xx answer carrying isValid:false is a refusal; anything else means we could not ask.
    if (err instanceof VerifyError && err.statusCode < 500) {
      return { kind: "invalid", code: err.invalidReason ?? "verification_failed" };
    }
    return unavailable(err);
  }
}

/** Settle failures after which the transfer may nevertheless have happened. */
const MAYBE_MOVED = new Set(["settlement_pending", "invalid_exact_evm_transfer_event_mismatch"]);

type SettleStep =
  | Extract<SettleOutcome, { kind: "settled" | "pending" | "unavailable" | "unknown" }>
  | { kind: "failed"; code: string; txHash?: Hex };

async function settle(
  server: x402ResourceServer,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  who: { payer: Address; nonce: Hex },
): Promise<SettleStep> {
  const amountAtomic = requirements.amount;
  let result: SettleResponse;
  try {
    result = await server.settlePayment(payload, requirements);
  } catch (err) {
    if (err instanceof SettleError && err.statusCode < 500) {
      result = { ...settleErrorResponse(err), network: requirements.network };
    } else if (isUndelivered(err)) {
      // The request never reached the facilitator: nothing can have been broadcast.
      return unavailable(err);
    } else {
      const txHash = err instanceof SettleError ? txHashOrUndefined(err.transaction) : undefined;
      return {
        kind: "unknown",
        reason: UNKNOWN,
        internal: describe(err),
        ...who,
        amountAtomic,
        txHash,
      };
    }
  }
  const txHash = txHashOrUndefined(result.transaction);
  if (result.success) {
    if (!txHash) {
      const internal = "facilitator reported success without a transaction hash";
      return { kind: "unknown", reason: UNKNOWN, internal, ...who, amountAtomic };
    }
    return { kind: "settled", txHash, ...who, amountAtomic, settlement: result };
  }
  if (result.errorReason === "settlement_pending" && txHash) {
    return { kind: "pending", txHash, ...who, amountAtomic, settlement: result };
  }
  if (result.errorReason && MAYBE_MOVED.has(result.errorReason)) {
    // A mined transaction that did not match, or a pending one without a hash: USDC may
    // have moved, so this is no refusal. The caller checks the chain.
    const internal = `facilitator answered ${result.errorReason}`;
    return { kind: "unknown", reason: UNKNOWN, internal, ...who, amountAtomic, txHash };
  }
  return { kind: "failed", code: result.errorReason ?? "settlement_failed", txHash };
}

function settleErrorResponse(err: SettleError): SettleResponse {
  return {
    success: false,
    errorReason: err.errorReason,
    errorMessage: err.errorMessage,
    payer: err.payer,
    transaction: err.transaction,
    network: err.network,
  };
}

function unavailable(err: unknown): Extract<SettleOutcome, { kind: "unavailable" }> {
  return { kind: "unavailable", reason: UNAVAILABLE, internal: describe(err) };
}

const UNDELIVERED_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** True when the error proves the request never reached the server (no connection made). */
function isUndelivered(err: unknown): boolean {
  if (err instanceof FacilitatorTimeoutError) return false;
  let current: unknown = err;
  for (let depth = 0; depth < 8 && isRecord(current); depth++) {
    const { code, errors, cause } = current;
    if (typeof code === "string" && UNDELIVERED_CODES.has(code)) return true;
    if (Array.isArray(errors) && errors.length > 0 && errors.every(isUndelivered)) return true;
    current = cause;
  }
  return false;
}

function txHashOrUndefined(value: string | undefined): Hex | undefined {
  const lower = value?.toLowerCase();
  return lower && /^0x[0-9a-f]{64}$/.test(lower) && isHex(lower) ? lower : undefined;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : "";
  return `${err.name}: ${err.message}${cause}`;
}

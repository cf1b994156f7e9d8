/**
 * The example error body of each code an operation answers, as a REST caller gets it from that
 * operation — what /docs shows beside each status. Where the wording depends on the operation
 * it is made by the code that answers (the caller check, the input's own validation, the price
 * of the contract's example input, the remedy the runner appends) or written here per operation
 * from its service's wording; only codes worded the same everywhere fall back to one example per
 * code (domain/error-examples.ts). A code in OWN_WORDING that an operation answers without an
 * example here fails the document's build, so a new refusal cannot borrow another's sentence.
 */
import { zodToOpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { readInput } from "../api/input.js";
import type { AnyContract, Refer, RestBinding } from "../api/operation.js";
import { agreementQuestion, type SpendQuote } from "../api/spend.js";
import type { ErrorCode } from "../domain/error-codes.js";
import { ERROR_EXAMPLES, type ErrorExample } from "../domain/error-examples.js";
import { ApiError } from "../domain/errors.js";
import { displayCents } from "../domain/money.js";
import { type KindSurface, kindsOf } from "../operations/kinds.js";
import { withRemedy } from "../operations/remedies.js";
import { checkCaller } from "../operations/run.js";
import { askDetail } from "../operations/spend-approval.js";

/** Codes whose sentence says what went wrong with this operation's own resource. */
const OWN_WORDING = new Set<ErrorCode>([
  "conflict",
  "wrong_state",
  "unavailable",
  "upstream_failed",
  "not_uploaded",
  "upload_mismatch",
  "paid_by_checkout",
  "already_uploaded",
]);

const CARD_DOWN =
  "The card payment provider could not open a checkout right now; nothing was charged, try again shortly.";

/**
 * Per core operation, the wording of its own refusals (from the services that answer them); a
 * job kind's operations carry theirs in their contracts (`examples`).
 */
const BY_OPERATION: Record<string, Partial<Record<ErrorCode, string>>> = {
  createAgentKey: {
    conflict:
      "This wallet already has 100 active agent keys and connected apps (the most allowed); revoke some first.",
  },
  changeAgentKeyLimit: {
    wrong_state: "This key is revoked; its limit can no longer change. Create a new key.",
  },
  adjustWalletBalance: {
    conflict: "The balance (120 cents) is smaller than the debit; debit at most the balance.",
  },
  createTopUpLink: { unavailable: CARD_DOWN, upstream_failed: CARD_DOWN },
  topUpWithUsdc: {
    unavailable: "USDC payments are not switched on at this server.",
  },
  releaseHeldCheckout: {
    wrong_state: "This checkout is paid; only a held checkout can be released.",
  },
  refundUsdc: {
    conflict: "This wallet has no USDC-funded balance left to refund.",
    unavailable:
      "USDC refunds are not switched on: set X402_ENABLED and X402_REFUND_PRIVATE_KEY (an operator wallet holding USDC and gas).",
  },
  createWebhookEndpoint: {
    conflict: "This wallet already has 10 webhook endpoints; delete one first.",
  },
  testWebhookEndpoint: {
    conflict:
      "This endpoint is disabled (see disabled_reason) and receives nothing; fix the receiver, then register it again.",
  },
};

/** What the id in each core resource's path names, as its service says "<what> not found.". */
const PATH_NOUNS: [prefix: string, noun: string, id: string][] = [
  ["/wallet/keys/", "Agent key", "key_3mJr7AoUXx7Wqd2vBZLWmU"],
  ["/wallet/webhooks/", "Webhook endpoint", "we_3mJr7AoUXx7Wqd2vBZLWmU"],
  ["/admin/wallets/", "Wallet", "wal_3mJr7AoUXx7Wqd2vBZLWmU"],
  ["/admin/checkouts/", "Checkout", "co_3mJr7AoUXx7Wqd2vBZLWmU"],
];

/**
 * The resource the id in an operation's path names (noun and an example id): a job of the
 * kind the operation belongs to, or a core resource; undefined for a path without an id.
 */
export function pathResource(
  contract: AnyContract,
  rest: RestBinding,
  kinds: readonly KindSurface[] = [],
): { noun: string; id: string } | undefined {
  if (!rest.path.includes("{")) return undefined;
  const [kind] = kindsOf(kinds, contract);
  if (kind) {
    const noun = `${kind.noun.charAt(0).toUpperCase()}${kind.noun.slice(1)}`;
    return { noun, id: `${kind.idPrefix}_5pX0c1Hq3GvJ2Yb8Lw9RzA` };
  }
  const hit = PATH_NOUNS.find(([prefix]) => rest.path.startsWith(prefix));
  return hit ? { noun: hit[1], id: hit[2] } : undefined;
}

/** The contract's example input, parsed (defaults filled in); undefined without one. */
function exampleInput(contract: AnyContract): Record<string, unknown> | undefined {
  const example = zodToOpenAPIRegistry.get(contract.input)?.example;
  const parsed = contract.input.safeParse(example);
  // cast: a contract's input schema is a z.object, so its parsed data is an object
  return parsed.success ? (parsed.data as Record<string, unknown>) : undefined;
}

/** What a call with the example input costs (spending operations), or undefined. */
function examplePrice(contract: AnyContract): SpendQuote | undefined {
  const input = exampleInput(contract);
  return input && contract.price ? (contract.price(input) ?? undefined) : undefined;
}

/**
 * A query or body this operation refuses as `invalid_field`, and the detail it answers: a
 * required field left out, else the first field given a value of the wrong kind (`fields`, the
 * query and body fields; the path's id is a well-formed one). The input is what a REST caller
 * sends (REST names, without the path's id); the test sends it and compares.
 */
export function invalidFieldProbe(
  contract: AnyContract,
  rest: RestBinding,
  fields: string[],
): { input: Record<string, unknown>; detail: string } | undefined {
  const name = (field: string) => rest.names?.[field] ?? field;
  const where = rest.method === "get" ? "query string" : "request body";
  const inPath = Object.keys(contract.input.shape).filter((f) => !fields.includes(f));
  const id = pathResource(contract, rest)?.id ?? "x_1";
  const path = Object.fromEntries(inPath.map((f) => [f, id]));
  const tries: Record<string, unknown>[] = [{}];
  for (const field of fields) {
    for (const bad of ["not-valid", -1, { x: 1 }]) tries.push({ [field]: bad });
  }
  for (const raw of tries) {
    try {
      readInput(contract.input, { ...path, ...raw }, where, name);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "invalid_field") continue;
      const input = Object.fromEntries(Object.entries(raw).map(([k, v]) => [name(k), v]));
      return { input, detail: err.detail };
    }
  }
  return undefined;
}

/** The refusal the shared caller check gives (its own wording), or undefined. */
function callerRefusal(contract: AnyContract, principal: unknown): string | undefined {
  try {
    // cast: an example principal of every kind is tried; checkCaller refuses the wrong ones, which is the point
    checkCaller(contract.auth, principal as Parameters<typeof checkCaller>[1]);
  } catch (err) {
    if (err instanceof ApiError) return err.detail;
    throw err;
  }
  return undefined;
}

function unauthorizedDetail(contract: AnyContract): string {
  if (contract.auth === "admin")
    return "Operator endpoints need Authorization: Bearer <ADMIN_TOKEN>.";
  // A key is optional here: only a key that was sent and is unknown is refused.
  if (contract.auth === "optional") {
    return "Unknown API key; check the key or create a wallet with POST /wallet.";
  }
  return callerRefusal(contract, undefined) ?? ERROR_EXAMPLES.unauthorized.detail;
}

/** The example, before the remedy the runner appends; undefined when none fits. */
function baseExample(
  contract: AnyContract,
  rest: RestBinding,
  code: ErrorCode,
  fields: string[],
  kinds: readonly KindSurface[],
): ErrorExample | undefined {
  const own = contract.examples?.[code] ?? BY_OPERATION[contract.id]?.[code];
  if (own) return { detail: own, extra: ERROR_EXAMPLES[code].extra };
  if (OWN_WORDING.has(code)) return undefined;
  const price = examplePrice(contract);
  switch (code) {
    case "unauthorized":
      return { detail: unauthorizedDetail(contract) };
    case "wallet_key_required": {
      const detail = callerRefusal(contract, { kind: "agent" });
      return detail ? { detail } : undefined;
    }
    case "not_found": {
      const resource = pathResource(contract, rest, kinds);
      return resource ? { detail: `${resource.noun} not found.` } : undefined;
    }
    case "invalid_field": {
      const probe = invalidFieldProbe(contract, rest, fields);
      return probe ? { detail: probe.detail } : undefined;
    }
    case "needs_topup":
      return price
        ? {
            detail: `The balance ($0.20) does not cover the price (${displayCents(price.cents)}).`,
            extra: { needs_topup: true },
          }
        : undefined;
    case "over_limit":
      return price
        ? {
            detail: `This agent key has $0.20 left of its limit, less than the price (${displayCents(price.cents)}); ask the wallet owner to raise the limit or use another key.`,
            extra: { over_limit: true },
          }
        : undefined;
    case "price_above_max":
      return price
        ? {
            detail: `${price.what} costs ${displayCents(price.cents)}, above max_price_cents ${price.cents - 1}; nothing was charged. Ask the owner, then call again with max_price_cents ${price.cents} or more.`,
            extra: { price_cents: price.cents, question: agreementQuestion(price) },
          }
        : undefined;
    case "agreement_required": {
      if (!price) return undefined;
      const id = "apr_4kQm8ZrV1pX6nT0bLw2YcA";
      const url = `https://kinora.example/approve/${id}`;
      const question = agreementQuestion(price);
      const at = new Date("2026-11-22T12:30:00.000Z");
      return {
        detail: askDetail(question, url, id, at, "rest"),
        extra: { price_cents: price.cents, question, approval_id: id, approval_url: url },
      };
    }
    default:
      return ERROR_EXAMPLES[code];
  }
}

/**
 * The example body of `code` on this operation as REST answers it (detail with its remedy,
 * the code's extra fields), or throws when the operation has none that fits.
 */
export function operationErrorExample(
  contract: AnyContract,
  rest: RestBinding,
  code: ErrorCode,
  fields: string[],
  refer: Refer,
  kinds: readonly KindSurface[] = [],
): ErrorExample {
  const base = baseExample(contract, rest, code, fields, kinds);
  if (!base) {
    throw new Error(
      `${contract.id} answers ${code} but has no example of its own (its contract's examples)`,
    );
  }
  // A job's id is what the remedy of a job not found reads; other resources have none.
  const resource =
    "job_id" in contract.input.shape ? pathResource(contract, rest, kinds) : undefined;
  const args = resource ? { job_id: resource.id } : {};
  const detail = withRemedy(base.detail, code, contract, refer, args, kinds);
  return base.extra ? { detail, extra: base.extra } : { detail };
}

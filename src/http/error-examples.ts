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
import { withRemedy } from "../operations/remedies.js";
import { checkCaller } from "../operations/run.js";

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

const RESTORE_NOT_UPLOADED =
  "The file has not been uploaded yet: PUT it to the upload_url with the upload_headers from job creation, then try again.";
const RESTORE_MISMATCH =
  "The uploaded file is 1048576 bytes but size was declared as 48000000; create a new job with the real size.";
const CLIP_NOT_UPLOADED =
  "The image has not been uploaded yet: PUT it to upload_url with upload_headers, then try again.";
const CARD_DOWN =
  "The card payment provider could not open a checkout right now; nothing was charged, try again shortly.";

/** Per operation, the wording of its own refusals (from the services that answer them). */
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
  startRestore: {
    not_found: "Restore job not found (or not visible to this key).",
    not_uploaded: RESTORE_NOT_UPLOADED,
    upload_mismatch: RESTORE_MISMATCH,
    paid_by_checkout: "This job is paid by checkout: it starts once paid.",
    wrong_state: "This job was cancelled and refunded; create a new job.",
  },
  cancelRestore: {
    not_found: "Restore job not found (or not visible to this key).",
    paid_by_checkout:
      "Only balance-paid jobs can be cancelled; an unpaid checkout job simply expires.",
    wrong_state: "The job is processing: it can be cancelled only before it starts.",
  },
  createRestoreCheckout: {
    not_uploaded:
      "Upload the file first (HTTP PUT to the job's upload_url), then ask for the checkout link.",
    upload_mismatch: RESTORE_MISMATCH,
    wrong_state:
      "This job is queued, not waiting for payment; only a job in pending_payment can be paid by checkout.",
    unavailable: CARD_DOWN,
    upstream_failed: CARD_DOWN,
  },
  startClip: {
    not_uploaded: CLIP_NOT_UPLOADED,
    upload_mismatch:
      "The uploaded image is 1048576 bytes but image_bytes was 245760; upload it again with the upload_url.",
    wrong_state: "The clip failed and was refunded; create a new clip.",
  },
  cancelClip: {
    already_uploaded: "The image has already arrived, so the clip can no longer be cancelled.",
    wrong_state:
      "The clip is queued; only a clip whose image never arrived (awaiting_upload) can be cancelled.",
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

/** What the id in each resource's path names, as its service says "<what> not found.". */
const PATH_NOUNS: [prefix: string, noun: string, id: string][] = [
  ["/cloud/jobs/", "Restore job", "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA"],
  ["/motion/jobs/", "Clip", "clip_5pX0c1Hq3GvJ2Yb8Lw9RzA"],
  ["/wallet/keys/", "Agent key", "key_3mJr7AoUXx7Wqd2vBZLWmU"],
  ["/wallet/webhooks/", "Webhook endpoint", "we_3mJr7AoUXx7Wqd2vBZLWmU"],
  ["/admin/wallets/", "Wallet", "wal_3mJr7AoUXx7Wqd2vBZLWmU"],
  ["/admin/checkouts/", "Checkout", "co_3mJr7AoUXx7Wqd2vBZLWmU"],
];

/** The resource a path's id names (noun and an example id); undefined for a path without one. */
export function pathResource(path: string): { noun: string; id: string } | undefined {
  const hit = PATH_NOUNS.find(([prefix]) => path.startsWith(prefix) && path.includes("{"));
  return hit ? { noun: hit[1], id: hit[2] } : undefined;
}

/** The contract's example input, parsed (defaults filled in); undefined without one. */
function exampleInput(contract: AnyContract): Record<string, unknown> | undefined {
  const example = zodToOpenAPIRegistry.get(contract.input)?.example;
  const parsed = contract.input.safeParse(example);
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
  const id = pathResource(rest.path)?.id ?? "x_1";
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
): ErrorExample | undefined {
  const own = BY_OPERATION[contract.id]?.[code];
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
      const resource = pathResource(rest.path);
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
): ErrorExample {
  const base = baseExample(contract, rest, code, fields);
  if (!base) {
    throw new Error(
      `${contract.id} answers ${code} but has no example of its own (src/http/error-examples.ts)`,
    );
  }
  const resource = pathResource(rest.path);
  const args = resource ? { job_id: resource.id } : {};
  const detail = withRemedy(base.detail, code, contract, refer, args);
  return base.extra ? { detail, extra: base.extra } : { detail };
}

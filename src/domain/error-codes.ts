/**
 * The closed table of machine-readable error codes. Every error body carries one (`code`),
 * beside the human `detail`; the same table drives the OpenAPI Error schema's enum, the MCP
 * tool errors and the client's (and `kinora admin`'s) exit codes. An error's HTTP status is its
 * code's row, nowhere else. Adding a code is one row here (status, exit, meaning) and its line in
 * the README's Errors table.
 */

/** Exit codes of the `kinora` client: 1 other refusal, 2 usage, 3 refused/funds, 4 server. */
type ErrorExit = 1 | 3 | 4;

/** The closed table of error codes: each code's status, exit code and meaning. */
export const ERROR_CODES = {
  invalid_field: {
    status: 400,
    exit: 1,
    meaning: "A field is missing or malformed; detail names it.",
  },
  invalid_request: {
    status: 400,
    exit: 1,
    meaning: "The request itself is malformed (JSON, content type, headers).",
  },
  key_in_url: {
    status: 400,
    exit: 1,
    meaning:
      "A key in the URL where none is accepted: a wallet key never, an agent key only on /mcp.",
  },
  not_uploaded: {
    status: 400,
    exit: 1,
    meaning: "The file has not been uploaded yet: PUT it to upload_url, then try again.",
  },
  upload_mismatch: {
    status: 400,
    exit: 1,
    meaning: "What arrived is not what was declared or allowed (size, type); upload it again.",
  },
  image_fetch_failed: {
    status: 400,
    exit: 1,
    meaning: "image_url could not be fetched, or is not a usable public image; detail says why.",
  },
  video_fetch_failed: {
    status: 400,
    exit: 1,
    meaning:
      "video_url is not a public http(s) URL, or could not be fetched as an accepted video; detail says why.",
  },
  unauthorized: {
    status: 401,
    exit: 1,
    meaning: "Missing or unknown key or token, or an expired or revoked access token.",
  },
  key_revoked: {
    status: 401,
    exit: 1,
    meaning: "The agent key or connected app was revoked by the wallet owner; ask for a new one.",
  },
  needs_topup: { status: 402, exit: 3, meaning: "The balance does not cover the price." },
  over_limit: { status: 402, exit: 3, meaning: "The agent key's limit does not cover the price." },
  price_above_max: {
    status: 402,
    exit: 3,
    meaning:
      "The price is above max_price_cents; nothing was charged. price_cents says what it costs.",
  },
  agreement_required: {
    status: 402,
    exit: 3,
    meaning:
      "This key must ask its owner before spending: show them approval_url, then send the same request again once they approved.",
  },
  payment_required: {
    status: 402,
    exit: 3,
    meaning: "Pay first (x402), or the payment was refused.",
  },
  forbidden: {
    status: 403,
    exit: 1,
    meaning: "Not allowed here, whoever asks (e.g. /metrics with no token configured).",
  },
  wallet_paused: {
    status: 403,
    exit: 3,
    meaning: "The operator paused the wallet; it cannot spend.",
  },
  wallet_key_required: {
    status: 403,
    exit: 1,
    meaning: "Only the wallet key (pmk_) may do this; agent keys cannot manage keys.",
  },
  agent_key_required: {
    status: 403,
    exit: 1,
    meaning: "MCP spends under a limit: connect with an agent key, not the wallet key.",
  },
  link_invalid: {
    status: 403,
    exit: 1,
    meaning: "The upload or download link is malformed, altered or expired; ask for a new one.",
  },
  not_found: { status: 404, exit: 1, meaning: "Not found, or not visible to this key." },
  method_not_allowed: { status: 405, exit: 1, meaning: "The path exists; the method does not." },
  conflict: {
    status: 409,
    exit: 1,
    meaning: "Conflicts with the current state, where no more specific 409 code applies.",
  },
  wrong_state: {
    status: 409,
    exit: 1,
    meaning: "The job, clip or checkout is in a state that does not allow this; detail names it.",
  },
  paid_by_checkout: {
    status: 409,
    exit: 1,
    meaning:
      "The job is paid by checkout: it starts once paid, and a key cannot start it or cancel it unpaid.",
  },
  already_uploaded: {
    status: 409,
    exit: 1,
    meaning:
      "The file already arrived (a link takes one file): start the job; it cannot be cancelled.",
  },
  idempotency_key_reused: {
    status: 409,
    exit: 1,
    meaning: "This Idempotency-Key was used with a different request; use a new key.",
  },
  idempotency_in_flight: {
    status: 409,
    exit: 1,
    meaning: "A request with this Idempotency-Key is still in progress; retry in a moment.",
  },
  gone: { status: 410, exit: 1, meaning: "The file or link has expired." },
  too_large: { status: 413, exit: 1, meaning: "The body or file is too large." },
  range_not_satisfiable: {
    status: 416,
    exit: 1,
    meaning: "The Range asks for bytes past the end of the file.",
  },
  over_a_limit: {
    status: 422,
    exit: 1,
    meaning: "Over a service limit (length, size, resolution).",
  },
  refused: { status: 422, exit: 3, meaning: "The content rule refused it; nothing was charged." },
  rate_limited: { status: 429, exit: 1, meaning: "Too many requests; retry after Retry-After." },
  internal: { status: 500, exit: 4, meaning: "An unexpected failure; quote request_id." },
  upstream_failed: { status: 502, exit: 4, meaning: "A provider (card, chain, model) failed." },
  unavailable: { status: 503, exit: 4, meaning: "Not switched on, starting, or draining." },
} as const satisfies Record<string, { status: number; exit: ErrorExit; meaning: string }>;

/** A code of the table. */
export type ErrorCode = keyof typeof ERROR_CODES;
/** Every code, as a non-empty tuple for enum schemas. */
// cast: Object.keys of the literal table just above is exactly its codes, and it is not empty
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** Every HTTP status an error can have: the statuses of the table's rows. */
export type ErrorStatus = (typeof ERROR_CODES)[ErrorCode]["status"];

/** The HTTP status of a code: its row's, never chosen anywhere else. */
export function statusOf(code: ErrorCode): ErrorStatus {
  return ERROR_CODES[code].status;
}

/** The `kinora` client's (and `kinora admin`'s) exit code for a code: its row's. */
export function exitOf(code: ErrorCode): ErrorExit {
  return ERROR_CODES[code].exit;
}

/** Whether a value (e.g. an error body's `code` from a server) is a row of this table. */
export function isErrorCode(value: unknown): value is ErrorCode {
  // Own rows only: `in` would also accept "toString" and the rest of Object.prototype.
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

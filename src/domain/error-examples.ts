/**
 * One example body per error code, as the API answers it: the fallback /docs shows for a code
 * worded the same by every operation (http/error-examples.ts words the others per operation,
 * and a test compares them with real answers). The details are the wording the code's throwers
 * use, with example values; `extra` holds the body fields that code carries besides detail,
 * code and request_id. The Record type keeps it complete: a code added to ./error-codes.ts
 * without an example here does not compile.
 */
import type { ErrorCode } from "./error-codes.js";

/** An error body's parts besides `code` and `request_id`. */
export interface ErrorExample {
  detail: string;
  extra?: Record<string, unknown>;
}

export const ERROR_EXAMPLES: Record<ErrorCode, ErrorExample> = {
  invalid_field: { detail: "limit_cents: must be an integer from 1 to 100000." },
  invalid_request: {
    detail: "The request body is not valid JSON: send Content-Type: application/json.",
  },
  key_in_url: {
    detail:
      "Keys are accepted in the URL (?key=) only on /mcp, and only agent keys; send it as Authorization: Bearer <key>.",
  },
  not_uploaded: {
    detail:
      "The file has not been uploaded yet: PUT it to upload_url with upload_headers, then try again.",
  },
  upload_mismatch: {
    detail:
      "The uploaded file is 1048576 bytes but size was 48000000; upload it again with the upload_url.",
  },
  image_fetch_failed: {
    detail: "image_url answered HTTP 404; give a URL that serves the image itself.",
  },
  video_fetch_failed: {
    detail: "video_url served text/html, not a video; give a URL that serves the video itself.",
  },
  unauthorized: {
    detail: "This operation needs a key: send Authorization: Bearer <pmk_ or pak_ key>.",
  },
  key_revoked: {
    detail: "This agent key has been revoked; ask the wallet owner for a new key.",
  },
  needs_topup: {
    detail:
      "The balance ($1.20) does not cover the price ($4.99). Add money with POST /wallet/topup (a card checkout link for the person paying) or POST /wallet/topup/crypto (USDC over x402).",
    extra: { needs_topup: true },
  },
  over_limit: {
    detail:
      "This agent key has $0.41 left of its limit, less than the price ($4.99); ask the wallet owner to raise the limit or use another key.",
    extra: { over_limit: true },
  },
  price_above_max: {
    detail:
      "Restore wedding.mp4, 1:35, Enhanced costs $4.99, above max_price_cents 400; nothing was charged. Ask the owner, then call again with max_price_cents 499 or more.",
    extra: {
      price_cents: 499,
      question: "Restore wedding.mp4, 1:35, Enhanced — $4.99 from your balance?",
    },
  },
  agreement_required: {
    detail:
      'This key must ask its owner before spending; nothing was charged. Show the owner this link to approve or decline "Make a 5 s 480p clip: "waves at dusk" — $0.59 from your balance?": https://kinora.example/approve/apr_4kQm8ZrV1pX6nT0bLw2YcA (it expires at 2026-11-22T12:30:00.000Z). GET /approvals/apr_4kQm8ZrV1pX6nT0bLw2YcA?wait=60 answers when they decide; once approved, send this same request again: it spends once.',
    extra: {
      price_cents: 59,
      question: 'Make a 5 s 480p clip: "waves at dusk" — $0.59 from your balance?',
      approval_id: "apr_4kQm8ZrV1pX6nT0bLw2YcA",
      approval_url: "https://kinora.example/approve/apr_4kQm8ZrV1pX6nT0bLw2YcA",
    },
  },
  payment_required: {
    detail:
      "Pay $20.00 in USDC: sign the terms in PAYMENT-REQUIRED and send them as PAYMENT-SIGNATURE.",
    extra: { payment_required: { x402Version: 2, accepts: [] } },
  },
  forbidden: {
    detail: "Only the operator can do this: send the admin token as Authorization: Bearer <token>.",
  },
  wallet_paused: {
    detail:
      "This wallet is paused by the operator, so it cannot spend; contact the operator to unpause it.",
  },
  wallet_key_required: {
    detail: "Only the wallet key (pmk_) can do this; agent keys cannot manage keys.",
  },
  agent_key_required: {
    detail:
      "Assistants spend under a limit: this is the wallet key. Make an agent key with a spending limit (POST /wallet/keys with limit_cents, or in the console) and connect the assistant with that.",
  },
  link_invalid: {
    detail: "This upload link has expired; create the job again for a new link.",
  },
  not_found: { detail: "Restore job not found." },
  method_not_allowed: {
    detail: "No endpoint DELETE /wallet; see /openapi.json or /docs for the API.",
  },
  conflict: {
    detail: "This wallet already has 100 active agent keys; revoke one first.",
  },
  wrong_state: {
    detail: "This job is processing; only a job whose file never arrived can be cancelled.",
  },
  paid_by_checkout: { detail: "This job is paid by checkout: it starts once paid." },
  already_uploaded: {
    detail:
      "This upload link was already used: each job takes one file. Create a new job to upload another.",
  },
  idempotency_key_reused: {
    detail:
      "This Idempotency-Key was already used with a different request; use a new key for a new request.",
  },
  idempotency_in_flight: {
    detail: "A request with this Idempotency-Key is still in progress; retry in a moment.",
  },
  gone: { detail: "The result of this job was deleted after its retention; restore it again." },
  too_large: { detail: "The request body is larger than 64 KB; send less." },
  range_not_satisfiable: {
    detail: "The range bytes=900000000- starts after the end of the file (48000000 bytes).",
  },
  over_a_limit: {
    detail: "duration_sec: must be at most 21600 seconds (6 hours); split longer videos.",
  },
  refused: {
    detail:
      "The prompt asks for nude content, which clips do not allow; describe a scene without nudity.",
    extra: { refused: "nudity" },
  },
  rate_limited: {
    detail: "Too many requests: at most 30 per 60 s; retry in 12 s.",
  },
  internal: {
    detail:
      "Internal error; retry, or quote request id req_5pX0c1Hq3GvJ2Yb8Lw9RzA to the operator.",
  },
  upstream_failed: {
    detail:
      "The card payment provider could not open a checkout right now; nothing was charged, try again shortly.",
  },
  unavailable: {
    detail:
      "USDC top-ups are not switched on: the operator sets X402_ENABLED and the receiving address.",
  },
};

/** Cloud restore operations: price, create, follow, start, cancel, list, pay by checkout. */
import { z } from "@hono/zod-openapi";
import { defineContract, READ_ONLY } from "../../../api/operation.js";
import { JobIdField, pageQuery, UntilField, WaitField, Wallet } from "../../../api/schemas.js";
import { RESTORE_LIST_LIMIT as LIST_LIMIT } from "../../../domain/limits.js";
import {
  CreateBody,
  CreatedRestore,
  JobEnvelope,
  PriceTable,
  Quote,
  QuoteBody,
  RestoreJob,
  restoreSpend,
} from "./schemas.js";
import { FollowPartsFields, FollowPartsOutput } from "./upload-contracts.js";

const TAGS = ["Cloud restore"] as const;
const JOB = { job_id: JobIdField("rj_5pX0c1Hq3GvJ2Yb8Lw9RzA") };
const NOT_UPLOADED =
  "The file has not been uploaded yet: PUT it to the upload_url with the upload_headers from job creation, then try again.";
const MISMATCH =
  "The uploaded file is 1048576 bytes but size was declared as 48000000; create a new job with the real size.";
const CARD_DOWN =
  "The card payment provider could not open a checkout right now; nothing was charged, try again shortly.";

/** A read that may wait: `wait_seconds` (`?wait=`) and what ends the wait (`until`). */
const FOLLOW = { ...JOB, wait_seconds: WaitField, until: UntilField };

/** The restore price table; no key needed. */
export const getRestorePrices = defineContract({
  id: "getRestorePrices",
  auth: "none",
  input: z.object({}).strict(),
  output: PriceTable,
  errors: [],
  rest: {
    method: "get",
    path: "/cloud/prices",
    tags: TAGS,
    summary: "The restore price table",
    description:
      "Base price per quality (up to 5 minutes), the per-minute price after it, the high-resolution factor and the limits.",
    answer: "The price table.",
  },
});

/** The price of a restore of a given length, quality and size; no key needed. */
export const quoteRestore = defineContract({
  id: "quoteRestore",
  auth: "none",
  input: QuoteBody,
  output: Quote,
  errors: ["over_a_limit"],
  policies: { rate: "quote" },
  rest: {
    method: "post",
    path: "/cloud/quote",
    tags: TAGS,
    summary: "Price a restore",
    description:
      "The price for a video of this length, size and quality. 422 when the video is over a limit.",
    answer: "The price.",
  },
  mcp: {
    name: "quote_restore",
    title: "Quote a restore",
    description:
      "Free. The exact price of restoring a video of this length, size and quality. Tell the owner before create_restore.",
    annotations: READ_ONLY,
  },
});

/** Create a restore: charged to the balance now (or paid by checkout), then uploaded or fetched. */
export const createRestore = defineContract({
  id: "createRestore",
  auth: "optional",
  input: CreateBody,
  output: CreatedRestore,
  errors: [
    "needs_topup",
    "over_limit",
    "wallet_paused",
    "over_a_limit",
    "video_fetch_failed",
    "price_above_max",
    "agreement_required",
  ],
  policies: { spends: true, rate: "spend" },
  price: restoreSpend,
  rest: {
    method: "post",
    path: "/cloud/jobs",
    tags: TAGS,
    summary: "Create a restore job",
    description:
      "With a key (and pay_with not checkout) the price is taken from the balance now and the job waits for its upload (`awaiting_upload`). Without a key, `email` is required and the job waits for payment (`pending_payment`): upload, then POST /cloud/jobs/{id}/checkout. With `video_url` instead of an upload, the server fetches the video (no upload_url) and a balance-paid job starts on its own (`processing`); a failed fetch ends it failed and refunded (error_code video_fetch_failed). The real length is measured before the restore runs: when it prices lower than declared, the difference is refunded then (one ledger entry; `amount_cents` shows the final price).",
    answer: "The job, where to upload the file and what to do next.",
  },
  mcp: {
    name: "create_restore",
    followedBy: "get_restore",
    title: "Create a cloud restore",
    description:
      "Costs from $2.99 by length and quality (quote_restore first; the owner's agreement unless given), charged now; shorter than declared: the difference back. PUT the file to upload_url with exactly upload_headers, then start_restore; or video_url: nothing to upload or start. pay_with checkout: the owner pays by card.",
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      // It reaches outside kinora: it fetches video_url, opens a card checkout, posts webhooks.
      openWorldHint: true,
    },
  },
});

/** The caller's restore jobs, newest first, a page at a time. */
export const listRestores = defineContract({
  id: "listRestores",
  auth: "key",
  input: pageQuery({ ...LIST_LIMIT, example: LIST_LIMIT.default }),
  output: z.object({ jobs: z.array(RestoreJob), next_cursor: z.string().nullable() }),
  errors: [],
  rest: {
    method: "get",
    path: "/cloud/jobs",
    tags: TAGS,
    summary: "List restore jobs",
    description: `Restore jobs, newest first, \`limit\` (${LIST_LIMIT.min}–${LIST_LIMIT.max}, default ${LIST_LIMIT.default}) at a time; pass \`next_cursor\` back as \`cursor\` for the next page (null on the last). The wallet key sees all of the wallet's jobs; an agent key only the jobs it created.`,
    answer: "A page of jobs.",
  },
  mcp: {
    name: "list_restores",
    title: "List this key's restores",
    description:
      "Free. This key's restores, newest first (status; download_url once done); next_cursor pages back. Finds a job whose id was lost.",
    annotations: READ_ONLY,
  },
});

/** One restore job by its id (the id is the capability), optionally held until it changes. */
export const getRestore = defineContract({
  id: "getRestore",
  auth: "none",
  input: z.object(FOLLOW).strict(),
  output: JobEnvelope,
  errors: ["not_found"],
  rest: {
    method: "get",
    path: "/cloud/jobs/{id}",
    names: { job_id: "id", wait_seconds: "wait" },
    tags: TAGS,
    summary: "Read a restore job",
    description:
      "No key needed: the 128-bit job id is the capability. `progress` while processing; `download_url` (valid 1 hour, fresh on every read) once done. `?wait=20` holds the answer until the status changes (20 s at most); add `&until=progress` to be answered at each progress report too.",
    answer: "The job.",
  },
});

/** Over MCP a restore is read with the key that made it: another key's job is not found. */
export const followRestore = defineContract({
  id: "followRestore",
  auth: "key",
  input: z.object({ ...FOLLOW, ...FollowPartsFields }).strict(),
  output: JobEnvelope.extend(FollowPartsOutput),
  errors: ["not_found"],
  mcp: {
    name: "get_restore",
    title: "Follow a restore",
    description:
      "Free. The job: status (processing → done; failed or refunded: money back), progress 0..1, queue ETA, download_url once done (fresh each call; kept about 48 hours). A file in parts: its upload, and links for parts.",
    annotations: READ_ONLY,
  },
});

/** Start a restore once its file is uploaded (idempotent). */
export const startRestore = defineContract({
  id: "startRestore",
  auth: "key",
  input: z.object(JOB).strict(),
  output: JobEnvelope,
  errors: ["not_found", "not_uploaded", "upload_mismatch", "paid_by_checkout", "wrong_state"],
  examples: {
    not_found: "Restore job not found (or not visible to this key).",
    not_uploaded: NOT_UPLOADED,
    upload_mismatch: MISMATCH,
    paid_by_checkout: "This job is paid by checkout: it starts once paid.",
    wrong_state: "This job was cancelled and refunded; create a new job.",
  },
  remedies: {
    paid_by_checkout: (refer, a) =>
      `Open its checkout with ${refer(createRestoreCheckout, { job_id: String(a.job_id) })} and give the link to the person paying.`,
  },
  rest: {
    method: "post",
    path: "/cloud/jobs/{id}/start",
    names: { job_id: "id" },
    tags: TAGS,
    summary: "Start a restore once the file is uploaded",
    description:
      "Checks the upload (present, declared size and type) and moves the job to `processing`. Starting a started job returns it unchanged. 400 says what is wrong with the upload.",
    answer: "The job, processing.",
  },
});

/** The card checkout link of a restore paid by checkout. */
export const createRestoreCheckout = defineContract({
  id: "createRestoreCheckout",
  auth: "none",
  input: z.object({ job_id: JobIdField("rj_4f8HkQ2n9LrT1xZcV6bYpA") }).strict(),
  output: z.object({ checkout_url: z.string(), job: RestoreJob }),
  errors: [
    "not_found",
    "not_uploaded",
    "upload_mismatch",
    "wrong_state",
    "unavailable",
    "upstream_failed",
  ],
  examples: {
    not_found: "Restore job not found.",
    not_uploaded:
      "Upload the file first (HTTP PUT to the job's upload_url), then ask for the checkout link.",
    upload_mismatch: MISMATCH,
    wrong_state:
      "This job is queued, not waiting for payment; only a job in pending_payment can be paid by checkout.",
    unavailable: CARD_DOWN,
    upstream_failed: CARD_DOWN,
  },
  policies: { rate: "create" },
  rest: {
    method: "post",
    path: "/cloud/jobs/{id}/checkout",
    names: { job_id: "id" },
    tags: TAGS,
    summary: "Checkout link for a restore paid per job",
    description:
      "For a job created without a key (pay_with checkout): once the file is uploaded, returns the hosted checkout link for the customer. Paying starts the job. Asking again returns a link for the same job; a job is paid at most once.",
    answer: "The checkout link and the job.",
  },
});

/** Over MCP, one tool starts a balance-paid restore or opens the checkout of a card-paid one. */
export const startOrPayRestore = defineContract({
  id: "startOrPayRestore",
  auth: "key",
  input: z.object(JOB).strict(),
  output: JobEnvelope.extend({
    checkout_url: z.string().optional().openapi({
      description: "For a job paid by checkout: the link for the owner; it starts once paid.",
    }),
  }),
  errors: [
    "not_found",
    "not_uploaded",
    "upload_mismatch",
    "wrong_state",
    "unavailable",
    "upstream_failed",
  ],
  mcp: {
    name: "start_restore",
    followedBy: "get_restore",
    title: "Start a restore",
    description:
      "No further charge. Starts the restore once the file is uploaded (again: unchanged); a pay_with checkout job returns checkout_url for the owner and starts once paid. Follow it with get_restore.",
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      // A pay_with checkout job opens its checkout at the card provider.
      openWorldHint: true,
    },
  },
});

/** Cancel a restore before it ends; refunded at once. */
export const cancelRestore = defineContract({
  id: "cancelRestore",
  auth: "key",
  input: z.object(JOB).strict(),
  output: z.object({ job: RestoreJob, wallet: Wallet }),
  errors: ["not_found", "paid_by_checkout", "wrong_state"],
  examples: {
    not_found: "Restore job not found (or not visible to this key).",
    paid_by_checkout: "Only paid jobs can be cancelled; an unpaid checkout job simply expires.",
    wrong_state: "The job is done: only a job not yet ended can be cancelled.",
  },
  rest: {
    method: "post",
    path: "/cloud/jobs/{id}/cancel",
    names: { job_id: "id" },
    tags: TAGS,
    summary: "Cancel a job that has not ended",
    description:
      "Before start (`awaiting_upload`, balance-paid, file or not) or while `queued`/`processing` (paid from the balance or by card): the price goes back at once, once — to the balance and the agent key's allowance, or to the card for a checkout-paid job, as a failed job's does. Its workers stop at their next heartbeat and every file of the job is deleted. Cancelling a cancelled job returns it unchanged; 409 once done, failed, refunded or expired.",
    answer: "The job, cancelled, and the wallet after the refund.",
  },
});

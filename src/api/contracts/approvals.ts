/**
 * Purchases waiting for the owner's yes. An agent key (or connected app) that must ask its owner
 * is refused a purchase with `agreement_required`, an `approval_id` and an `approval_url`; it
 * reads (and waits for) that approval here. Only the wallet key lists and decides them — the
 * owner, on the approval page or over REST; no agent key can. No MCP tools: an assistant shows
 * the link and calls its spending tool again (the tools/list budget, and no tool can decide).
 */
import { z } from "@hono/zod-openapi";
import { defineContract } from "../operation.js";
import { IdField } from "../schemas.js";

const TAGS = ["Agent keys"] as const;
const APPROVAL_ID = { approval_id: IdField("apr_4kQm8ZrV1pX6nT0bLw2YcA") };

/** A purchase an asking key waits for, as its key and its owner see it. */
export const Approval = z
  .object({
    id: z.string().openapi({ example: "apr_4kQm8ZrV1pX6nT0bLw2YcA" }),
    status: z.enum(["pending", "approved", "declined", "expired"]).openapi({
      description:
        "pending: waiting for the owner; approved: send the same request again (once: it spends then, and a repeat replays that answer); declined; expired: not answered (or not used) in time — ask again.",
    }),
    used: z.boolean().openapi({ description: "The approved purchase was made." }),
    question: z.string().openapi({
      example: "Restore wedding.mp4, 1:35, Enhanced — $4.99 from your balance?",
    }),
    price_cents: z.number().int(),
    operation: z.string().openapi({ example: "createRestore" }),
    agent_key: z.object({
      id: z.string(),
      label: z.string(),
      kind: z.enum(["agent", "connected_app"]),
    }),
    approval_url: z.string().openapi({ example: "https://kinora.example/approve/apr_4kQm8…" }),
    created_at: z.string(),
    expires_at: z.string(),
    decided_at: z.string().nullable(),
  })
  .openapi("Approval");

/** An asking key's approval (its own only), or any of the wallet's for the wallet key. */
export const getApproval = defineContract({
  id: "getApproval",
  auth: "key",
  input: z
    .object({
      ...APPROVAL_ID,
      wait_seconds: z
        .number({ error: "must be a whole number of seconds from 0 to 60" })
        .int("must be a whole number of seconds from 0 to 60")
        .min(0, "must be a whole number of seconds from 0 to 60")
        .max(60, "must be a whole number of seconds from 0 to 60")
        .optional()
        .openapi({ description: "Wait up to this many seconds while it is pending." }),
    })
    .strict(),
  output: z.object({ approval: Approval }),
  errors: ["not_found"],
  examples: { not_found: "Approval not found." },
  rest: {
    method: "get",
    path: "/approvals/{id}",
    names: { approval_id: "id", wait_seconds: "wait" },
    tags: TAGS,
    summary: "Read a purchase approval",
    description:
      "The purchase an asking key waits for (its approval_id from agreement_required): with `?wait=60` the answer comes when the owner decides (or after 60 s, still pending). Once approved, send the refused request again with the same input: it spends once. An agent key reads only its own; the wallet key any of the wallet's.",
    answer: "The approval.",
  },
});

/** Wallet key only: the wallet's approvals, newest first. */
export const listApprovals = defineContract({
  id: "listApprovals",
  auth: "wallet",
  input: z.object({}).strict(),
  output: z.object({ approvals: z.array(Approval) }),
  errors: [],
  rest: {
    method: "get",
    path: "/wallet/approvals",
    tags: TAGS,
    summary: "List purchase approvals",
    description:
      "The purchases the wallet's asking keys waited for (the latest 100): pending, approved, declined or expired. Wallet key only.",
    answer: "The approvals, newest first.",
  },
});

/** Wallet key only: the owner's yes or no to a pending purchase. */
export const decideApproval = defineContract({
  id: "decideApproval",
  auth: "wallet",
  input: z
    .object({
      ...APPROVAL_ID,
      decision: z.enum(["approve", "decline"], { error: "must be approve or decline" }),
    })
    .strict()
    .openapi({ example: { decision: "approve" } }),
  output: z.object({ approval: Approval }),
  errors: ["not_found", "conflict"],
  examples: {
    not_found: "Approval not found.",
    conflict: "This purchase was already declined; a decision is final.",
  },
  rest: {
    method: "post",
    path: "/approvals/{id}/decision",
    names: { approval_id: "id" },
    tags: TAGS,
    summary: "Approve or decline a purchase",
    description:
      "The owner's answer to a purchase an asking key waits for (the page /approve/{id} sends the same). Approved, the key's same request spends once within PURCHASE_APPROVAL_MINUTES; a decision is final (409 after one, or once expired). Wallet key only: no agent key can approve.",
    answer: "The decided approval.",
  },
});

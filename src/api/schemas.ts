/** Response and field schemas shared by several routes; they become OpenAPI components. */
import { z } from "@hono/zod-openapi";
import { ERROR_CODE_NAMES } from "../domain/error-codes.js";
import { DEFAULT_FADE_HINT, FADE_HINT_MEANING, FADE_HINTS } from "../domain/fade.js";
import { EMAIL_MAX_LENGTH } from "../domain/limits.js";

/** Every error response's body, on every surface (the codes from domain/error-codes.ts). */
export const ErrorBody = z
  .object({
    detail: z.string().openapi({ example: "limit_cents: must be an integer from 1 to 100000." }),
    needs_topup: z.boolean().optional(),
    over_limit: z.boolean().optional(),
    refused: z.string().optional(),
    price_cents: z.number().int().optional().openapi({
      description:
        "price_above_max and agreement_required: what the call costs, in cents (nothing was charged).",
    }),
    question: z.string().optional().openapi({
      description:
        'price_above_max and agreement_required: the question to put to the owner, e.g. "Restore wedding.mp4, 1:35, Enhanced — $4.99 from your balance?"',
    }),
    approval_id: z.string().optional().openapi({
      description:
        "agreement_required for a key that must ask: the purchase waiting for the owner (GET /approvals/{id}?wait=60 says when they decide).",
    }),
    approval_url: z.string().optional().openapi({
      description:
        "agreement_required for a key that must ask: the page where the owner approves or declines; show it to them, then send the same request again.",
    }),
    code: z.enum(ERROR_CODE_NAMES).openapi({
      description: "Machine-readable: one of a closed table (see the README's Errors section).",
    }),
    request_id: z.string().openapi({ description: "Quote it to the operator." }),
  })
  .openapi("Error");

/** Every error response's body, as programs read it (the `kinora` client among them). */
export type ErrorBody = z.infer<typeof ErrorBody>;

/** An agent key (or connected app) as the wallet owner sees it; never its secret. */
export const AgentKey = z
  .object({
    id: z.string().openapi({ example: "key_3mJr7AoUXx7Wqd2vBZLWmU" }),
    label: z.string(),
    limit_cents: z.number().int(),
    spent_cents: z.number().int(),
    remaining_cents: z.number().int(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked: z.boolean(),
    kind: z.enum(["agent", "connected_app"]),
    connected_app: z
      .object({
        client_id: z.string(),
        client_name: z.string(),
        redirect_host: z.string().nullable(),
      })
      .optional()
      .openapi({
        description:
          "Present when this key is a connected app (an MCP client signed in with OAuth): which app, and the host it returns to. Revoke it like any key.",
      }),
    ask_before_spending: z.boolean().openapi({
      description:
        "The owner's standing agreement: true (default) — an assistant states the price and asks before each purchase; false — it may spend within the limit without asking.",
    }),
    ask_above_cents: z.number().int().nullable().openapi({
      description: "Owner-set: no asking at or below this price; null: ask for each purchase.",
    }),
  })
  .openapi("AgentKey");

/** A wallet as the calling key sees it. */
export const Wallet = z
  .object({
    wallet_id: z.string().openapi({ example: "wal_4f8HkQ2n9LrT1xZcV6bYpA" }),
    balance_cents: z.number().int(),
    spendable_cents: z.number().int().openapi({
      description: "What the calling key can spend now: 0 when paused or revoked.",
    }),
    paused: z.boolean().openapi({
      description:
        "Set by the operator. A paused wallet can be read and topped up but cannot spend (charges answer 403).",
    }),
    email: z.string().nullable().optional().openapi({ description: "Only for the wallet key." }),
    agent_key: AgentKey.optional().openapi({ description: "Present when an agent key calls." }),
  })
  .openapi("Wallet");

/** An e-mail address field, bounded and checked. */
export const Email = z
  .string()
  .max(EMAIL_MAX_LENGTH, `must be at most ${EMAIL_MAX_LENGTH} characters`)
  .email("must be an e-mail address like name@example.com");

/** What the customer says of the tape's levels (domain/fade.ts), on restores and previews. */
export const FadeField = z
  .enum(FADE_HINTS, { error: `must be ${FADE_HINTS.join(", ")}` })
  .optional()
  .meta({ description: FADE_HINT_MEANING, default: DEFAULT_FADE_HINT });

/** What was said of a job's levels, as its view shows it. */
export const FadeView = z.enum(FADE_HINTS).openapi({
  description: "What was said of the tape's levels: auto (the analysis decides), faded, not_faded.",
});

/** A path `{id}` parameter with its example, for routes that are not operations. */
export const IdParam = (name: string, example: string) =>
  z.object({
    id: z
      .string()
      .min(1)
      .max(64)
      .openapi({ param: { name, in: "path" }, example }),
  });

/** `?limit=&cursor=` of a newest-first list, `limit` from `min` to `max` a page. */
export function pageQuery(bounds: { min: number; max: number; example: number }) {
  const limitError = `must be an integer from ${bounds.min} to ${bounds.max}`;
  return z.object({
    limit: z
      .number({ error: limitError })
      .int(limitError)
      .min(bounds.min, limitError)
      .max(bounds.max, limitError)
      .optional()
      .openapi({ example: bounds.example })
      .meta({
        description: "Page size, newest first.",
        default: bounds.example,
      }),
    cursor: z
      .string()
      .min(1, "must not be empty")
      .max(200, "must be at most 200 characters")
      .optional()
      .meta({ description: "next_cursor of the previous page." }),
  });
}

/** The additive `queue` field of restore jobs and clips (src/jobs/queue-estimate/). */
export const QueueEstimate = z
  .object({
    state: z.enum(["queued", "running"]).openapi({
      description:
        "queued: waiting for a worker (a restore's status stays processing meanwhile); running: a worker has it.",
      example: "queued",
    }),
    position: z.number().int().openapi({
      description: "1 = the next job a worker takes; 0 = a worker is running it now.",
      example: 3,
    }),
    ahead: z.number().int().openapi({
      description: "Jobs of any kind (restores and clips share the workers) a worker takes first.",
      example: 2,
    }),
    eta_seconds: z.number().int().openapi({
      description:
        "Estimated seconds until done (at least 1): what the workers have left of the jobs they run (from their progress and speed), the jobs ahead and this one, shared over the live workers, at this server's measured speeds.",
      example: 140,
    }),
    estimated_done_at: z.string().openapi({ example: "2026-11-01T12:02:20.000Z" }),
  })
  .openapi("QueueEstimate", {
    description:
      "Present while the job waits for or is run by a worker (null otherwise). One estimator behind every surface (REST, MCP, the console, the kinora client), recomputed on every read from what the workers are doing now; the same situation gives the same figure.",
  });

/** The id of a resource in an operation's input (a path parameter over REST). */
export const IdField = (example: string, required = "is required: the id", max = 64) =>
  z
    .string({ error: required })
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .openapi({ example })
    .meta({ description: "The id an earlier answer gave." });

/** The id of a job (a restore or a clip). */
export const JobIdField = (example: string, max = 64) =>
  IdField(example, "is required: the job's id (rj_… or clip_…)", max);

/** Long-poll on a read: `?wait=` over REST, `wait_seconds` over MCP. */
export const WaitField = z
  .number({ error: "must be a number of seconds from 0 to 25" })
  .int("must be a whole number of seconds from 0 to 25")
  .min(0, "must be a number of seconds from 0 to 25")
  .max(25, "must be at most 25 seconds")
  .optional()
  .openapi({ example: 20 })
  .meta({
    description:
      "Long-poll: hold the answer up to this long for a new status (with until progress, a report).",
    minimum: 0,
    maximum: 25,
    default: 0,
  });

/** What ends a wait (`wait_seconds`, `?wait=`) early, as both surfaces name it. */
const WAIT_UNTIL = ["status", "progress"] as const;

/** `until` on a read: a status change only (default), or any progress report too. */
export const UntilField = z
  .enum(WAIT_UNTIL, { error: "must be status or progress" })
  .optional()
  .openapi({ example: "status" })
  .meta({
    description: "What ends a wait: status (a new status) or progress (also a progress report).",
    default: "status",
  });

/** The wallet as the calling key sees it. */
export type WalletView = z.input<typeof Wallet>;
/** An agent key (or connected app) as its wallet's owner sees it. */
export type AgentKeyView = z.input<typeof AgentKey>;

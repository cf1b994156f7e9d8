/**
 * The webhook contract shared by REST and MCP: the fields a job's create takes, how a job and an
 * endpoint show their deliveries, and the endpoints a wallet owner registers (docs/webhooks.md).
 */
import { z } from "@hono/zod-openapi";
import {
  DEFAULT_ENDPOINT_EVENTS,
  DEFAULT_JOB_EVENTS,
  JOB_EVENTS,
  WEBHOOK_EVENT_TYPES,
} from "../domain/webhooks.js";

const URL_MAX = 2048;

/** A receiver URL as callers give it (checked further by the service: https, public address). */
const ReceiverUrl = z
  .string({ error: "must be an https URL" })
  .min(1, "must not be empty")
  .max(URL_MAX, `must be at most ${URL_MAX} characters`);

/** The two fields every job create takes (spread into CreateRestoreRequest, CreateClipRequest). */
export const JobWebhookFields = {
  webhook_url: ReceiverUrl.optional().meta({
    description:
      "An https URL for this job's events (Standard Webhooks, signed with the wallet's secret).",
    example: "https://example.com/hooks/kinora",
  }),
  webhook_events: z
    .array(z.enum(JOB_EVENTS, { error: `must each be one of ${JOB_EVENTS.join(", ")}` }), {
      error: `must be a list of ${JOB_EVENTS.join(", ")}`,
    })
    .min(1, "must name at least one event")
    .max(JOB_EVENTS.length, `must name at most ${JOB_EVENTS.length} events`)
    .optional()
    .meta({
      description: `started, progress (every 5 %), completed (final status); default ${DEFAULT_JOB_EVENTS.join(", ")}.`,
    }),
};

const WebhookDelivery = z
  .object({
    id: z.string().openapi({ example: "dlv_4xQ…_1" }),
    event_id: z.string().openapi({ description: "The webhook-id header of every attempt." }),
    type: z.string().openapi({ example: "job.completed" }),
    endpoint_id: z.string().nullable().openapi({ description: "null: the job's own webhook_url." }),
    state: z.enum(["pending", "delivered", "failed", "cancelled"]),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable().openapi({ description: "While pending." }),
    last_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("WebhookDelivery");

/** A job's own webhook as its reads show it (null when it has none). */
export const JobWebhook = z
  .object({
    url: z.string(),
    events: z.array(z.string()),
    deliveries: z.array(WebhookDelivery).openapi({ description: "The latest first (up to 10)." }),
  })
  .openapi("JobWebhook");

/** A wallet's webhook endpoint as its owner sees it, with its latest deliveries. */
export const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ example: "we_3kQ…" }),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    created_at: z.string(),
    status: z.enum(["enabled", "disabled"]),
    disabled_at: z.string().nullable(),
    disabled_reason: z.string().nullable(),
    failing_since: z
      .string()
      .nullable()
      .openapi({ description: "Every delivery since then failed; 3 days of that disables it." }),
    deliveries: z.array(WebhookDelivery).openapi({ description: "The latest first (up to 10)." }),
  })
  .openapi("WebhookEndpoint");

/** What registering an endpoint takes: the URL, the event types and a description. */
export const CreateEndpointBody = z
  .object({
    url: ReceiverUrl.meta({ description: "An https URL at a public address." }),
    events: z
      .array(
        z.enum(WEBHOOK_EVENT_TYPES, {
          error: `must each be one of ${WEBHOOK_EVENT_TYPES.join(", ")}`,
        }),
      )
      .min(1, "must name at least one event type")
      .max(WEBHOOK_EVENT_TYPES.length)
      .optional()
      .meta({ description: `Default ${JSON.stringify(DEFAULT_ENDPOINT_EVENTS)}.` }),
    description: z.string().max(200, "must be at most 200 characters").optional(),
  })
  .strict()
  .openapi("CreateWebhookEndpointRequest", {
    example: {
      url: "https://example.com/hooks/kinora",
      events: ["job.completed", "wallet.credited"],
    },
  });

/** One delivery as a job's or an endpoint's reads show it. */
export type WebhookDeliveryView = z.input<typeof WebhookDelivery>;
/** A job's own webhook as its reads show it. */
export type JobWebhookView = z.input<typeof JobWebhook>;
/** An endpoint as the API shows it. */
export type WebhookEndpointView = z.input<typeof WebhookEndpoint>;

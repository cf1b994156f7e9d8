/**
 * Webhook management, wallet key only: the endpoints that receive every job's and the wallet's
 * events, a test event, and the wallet's default signing secret (which signs the deliveries to
 * a job's own webhook_url). No MCP tools: an assistant's key cannot manage them.
 */
import { z } from "@hono/zod-openapi";
import { defineContract } from "../operation.js";
import { IdField } from "../schemas.js";
import { CreateEndpointBody, WebhookEndpoint } from "../webhooks.js";

const TAGS = ["Webhooks"] as const;
const ENDPOINT = { endpoint_id: IdField("we_3kQm8ZrV1pX6nT0bLw2YcA") };
const BY_ID = { endpoint_id: "id" } as const;
const Secret = z.string().openapi({
  example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  description: "A Standard Webhooks secret: verify each delivery's webhook-signature with it.",
});

/** Wallet key only: register an https endpoint for the wallet's events. */
export const createWebhookEndpoint = defineContract({
  id: "createWebhookEndpoint",
  auth: "wallet",
  input: CreateEndpointBody,
  output: z.object({ endpoint: WebhookEndpoint, secret: Secret }),
  errors: ["conflict"],
  policies: { rate: "create" },
  rest: {
    method: "post",
    path: "/wallet/webhooks",
    tags: TAGS,
    summary: "Register a webhook endpoint",
    description:
      "The endpoint receives the events it names (default: every job's completion, credits and agent keys reaching their limit) for every job of the wallet and its agent keys. The URL must be https at a public address (checked now and before every delivery). The signing secret is shown once. Wallet key only.",
    answer: "The endpoint and its signing secret (shown once).",
  },
});

/** Wallet key only: the wallet's endpoints with their latest deliveries. */
export const listWebhookEndpoints = defineContract({
  id: "listWebhookEndpoints",
  auth: "wallet",
  input: z.object({}).strict(),
  output: z.object({ endpoints: z.array(WebhookEndpoint) }),
  errors: [],
  rest: {
    method: "get",
    path: "/wallet/webhooks",
    tags: TAGS,
    summary: "List webhook endpoints",
    description:
      "The wallet's endpoints, newest first, each with its latest deliveries (state, attempts, next try, last answer) and, for a disabled one, why. Wallet key only.",
    answer: "The endpoints.",
  },
});

/** Wallet key only: delete an endpoint; its pending deliveries are cancelled. */
export const deleteWebhookEndpoint = defineContract({
  id: "deleteWebhookEndpoint",
  auth: "wallet",
  input: z.object(ENDPOINT).strict(),
  output: z.object({ endpoint: WebhookEndpoint }),
  errors: ["not_found"],
  rest: {
    method: "post",
    path: "/wallet/webhooks/{id}/delete",
    names: BY_ID,
    tags: TAGS,
    summary: "Delete a webhook endpoint",
    description:
      "Stops every delivery to it at once (waiting ones are cancelled). Deleting a deleted endpoint is not_found. Wallet key only.",
    answer: "The endpoint as it was.",
  },
});

/** Wallet key only: send one test event to an endpoint. */
export const testWebhookEndpoint = defineContract({
  id: "testWebhookEndpoint",
  auth: "wallet",
  input: z.object(ENDPOINT).strict(),
  output: z.object({ event_id: z.string(), endpoint: WebhookEndpoint }),
  errors: ["not_found", "conflict"],
  policies: { rate: "create" },
  rest: {
    method: "post",
    path: "/wallet/webhooks/{id}/test",
    names: BY_ID,
    tags: TAGS,
    summary: "Send a test event",
    description:
      "Queues a signed `webhook.test` event to this endpoint, delivered and retried like any other; follow it in the endpoint's deliveries. A disabled endpoint is a conflict (register it again). Wallet key only.",
    answer: "The test event's id and the endpoint.",
  },
});

/** Wallet key only: the wallet's default webhook signing secret. */
export const getWebhookSecret = defineContract({
  id: "getWebhookSecret",
  auth: "wallet",
  input: z.object({}).strict(),
  output: z.object({ secret: Secret }),
  errors: [],
  rest: {
    method: "get",
    path: "/wallet/webhook-secret",
    tags: TAGS,
    summary: "The wallet's webhook signing secret",
    description:
      "Signs every delivery to a job's own webhook_url (made on first read). Endpoints have their own. Wallet key only.",
    answer: "The secret.",
  },
});

/** Wallet key only: a new default signing secret (the old one keeps signing for a while). */
export const rotateWebhookSecret = defineContract({
  id: "rotateWebhookSecret",
  auth: "wallet",
  input: z.object({}).strict(),
  output: z.object({ secret: Secret }),
  errors: [],
  rest: {
    method: "post",
    path: "/wallet/webhook-secret/rotate",
    tags: TAGS,
    summary: "Rotate the wallet's webhook signing secret",
    description:
      "A new secret signs every delivery from now on (retries of older events included); the old one stops at once. Wallet key only.",
    answer: "The new secret.",
  },
});

/** Every webhook management contract (no MCP binding: wallet key only). */
export const WEBHOOK_CONTRACTS = [
  createWebhookEndpoint,
  listWebhookEndpoints,
  deleteWebhookEndpoint,
  testWebhookEndpoint,
  getWebhookSecret,
  rotateWebhookSecret,
] as const;

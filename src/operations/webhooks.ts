/** The webhook management handlers: each maps its input onto one service call. */

import * as c from "../api/contracts/webhooks.js";
import { implement, type Operation } from "../api/operation.js";
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointDeps,
  listEndpoints,
  sendTestEvent,
} from "../services/webhooks/endpoints.js";
import { rotateWalletSecret, walletSecret } from "../services/webhooks/secrets.js";

const create = implement(c.createWebhookEndpoint, async (deps: EndpointDeps, a, ctx) =>
  createEndpoint(deps, ctx.principal.walletId, {
    url: a.url,
    events: a.events,
    description: a.description,
  }),
);

const list = implement(c.listWebhookEndpoints, async (deps: EndpointDeps, _a, ctx) => ({
  endpoints: await listEndpoints(deps, ctx.principal.walletId),
}));

const remove = implement(c.deleteWebhookEndpoint, async (deps: EndpointDeps, a, ctx) => ({
  endpoint: await deleteEndpoint(deps, ctx.principal.walletId, a.endpoint_id),
}));

const test = implement(c.testWebhookEndpoint, async (deps: EndpointDeps, a, ctx) =>
  sendTestEvent(deps, ctx.principal.walletId, a.endpoint_id),
);

const secret = implement(c.getWebhookSecret, async (deps: EndpointDeps, _a, ctx) => ({
  secret: await walletSecret(deps, ctx.principal.walletId),
}));

const rotate = implement(c.rotateWebhookSecret, async (deps: EndpointDeps, _a, ctx) => ({
  secret: await rotateWalletSecret(deps, ctx.principal.walletId),
}));

/** The webhook management operations, bound to their services. */
export function webhookOperations(deps: EndpointDeps): Operation[] {
  return [create, list, remove, test, secret, rotate].map((bind) => bind(deps));
}

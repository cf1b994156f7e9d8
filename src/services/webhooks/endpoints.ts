/**
 * The endpoints a wallet owner registers: each receives the events it names for every job of
 * the wallet (and of its agent keys) and the wallet's own events, signed with its own secret,
 * shown once. Deleting one cancels what waits for it; a test event goes through the outbox
 * like any other event.
 */
import type { Selectable } from "kysely";
import type { WebhookEndpointView } from "../../api/webhooks.js";
import type { WebhookEndpointsTable } from "../../db/schema.js";
import { at } from "../../domain/checked-index.js";
import { ApiError, invalidField, notFound } from "../../domain/errors.js";
import type { IdGenerator } from "../../domain/ids.js";
import { DEFAULT_ENDPOINT_EVENTS, type WebhookEventType } from "../../domain/webhooks.js";
import { inTx } from "../../jobs/move.js";
import { enqueueTestEvent } from "../../jobs/webhook-outbox.js";
import { newWebhookSecret } from "../../standard-webhooks.js";
import { endpointDeliveries } from "./reads.js";
import { type ReceiverPolicy, ReceiverRefused, resolveReceiver } from "./receiver-url.js";
import { SECRET_PURPOSE, type SecretDeps } from "./secrets.js";

/** Endpoints one wallet may have at once. */
export const MAX_ENDPOINTS = 10;

export interface EndpointDeps extends SecretDeps {
  ids: IdGenerator;
  receivers: ReceiverPolicy;
}

type EndpointRow = Selectable<WebhookEndpointsTable>;

/** A timestamp column as ISO 8601 text; a nullable one stays null when empty. */
function iso(d: Date): string;
function iso(d: Date | null): string | null;
function iso(d: Date | null): string | null {
  return d ? new Date(d).toISOString() : null;
}

async function views(
  deps: SecretDeps,
  rows: readonly EndpointRow[],
): Promise<WebhookEndpointView[]> {
  const deliveries = await endpointDeliveries(
    deps.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    url: r.url,
    description: r.description,
    // cast: the column is written only from the validated WebhookEventType list
    events: r.events as WebhookEventType[],
    created_at: iso(r.created_at),
    status: r.disabled_at ? "disabled" : "enabled",
    disabled_at: iso(r.disabled_at),
    disabled_reason: r.disabled_reason,
    failing_since: iso(r.failing_since),
    deliveries: deliveries.get(r.id) ?? [],
  }));
}

async function oneView(deps: SecretDeps, row: EndpointRow) {
  return at(await views(deps, [row]), 0);
}

export interface NewEndpoint {
  url: string;
  events?: readonly WebhookEventType[] | undefined;
  description?: string | undefined;
}

/** Registers an endpoint (URL checked now); its secret is in the answer and nowhere else. */
export async function createEndpoint(deps: EndpointDeps, walletId: string, input: NewEndpoint) {
  try {
    await resolveReceiver(input.url, deps.receivers, "url");
  } catch (err) {
    if (err instanceof ReceiverRefused) throw invalidField("url", err.message.replace(/^url /, ""));
    throw err;
  }
  const secret = newWebhookSecret();
  const row = await inTx(deps.db, async (tx) => {
    // Lock the wallet row so two concurrent registrations cannot both pass the count.
    await tx.selectFrom("wallets").select("id").where("id", "=", walletId).forUpdate().execute();
    const { n } = await tx
      .selectFrom("webhook_endpoints")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("wallet_id", "=", walletId)
      .where("deleted_at", "is", null)
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_ENDPOINTS) {
      throw new ApiError(
        "conflict",
        `This wallet already has ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
      );
    }
    return tx
      .insertInto("webhook_endpoints")
      .values({
        id: deps.ids("we"),
        wallet_id: walletId,
        url: input.url,
        description: input.description ?? "",
        events: [...new Set(input.events ?? DEFAULT_ENDPOINT_EVENTS)],
        secret_sealed: deps.signer.seal(SECRET_PURPOSE, secret),
        created_at: deps.clock(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { endpoint: await oneView(deps, row), secret };
}

/** The wallet's endpoints (not deleted), newest first, with their latest deliveries. */
export async function listEndpoints(deps: SecretDeps, walletId: string) {
  const rows = await deps.db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("wallet_id", "=", walletId)
    .where("deleted_at", "is", null)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return views(deps, rows);
}

async function ownedEndpoint(deps: SecretDeps, walletId: string, id: string) {
  const row = await deps.db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", id)
    .where("wallet_id", "=", walletId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  if (!row) throw notFound("Webhook endpoint");
  return row;
}

/** Deletes an endpoint and cancels the deliveries still waiting for it. */
export async function deleteEndpoint(deps: SecretDeps, walletId: string, id: string) {
  const row = await ownedEndpoint(deps, walletId, id);
  const now = deps.clock();
  await inTx(deps.db, async (tx) => {
    await tx
      .updateTable("webhook_endpoints")
      .set({ deleted_at: now })
      .where("id", "=", id)
      .execute();
    await tx
      .updateTable("webhook_deliveries")
      .set({ state: "cancelled", last_error: "the endpoint was deleted" })
      .where("endpoint_id", "=", id)
      .where("state", "=", "pending")
      .execute();
  });
  return oneView(deps, row);
}

/**
 * Queues a `webhook.test` event to one enabled endpoint. A disabled one is refused: nothing is
 * delivered to it (its delivery would wait forever), and it comes back only registered again.
 */
export async function sendTestEvent(deps: SecretDeps, walletId: string, id: string) {
  const row = await ownedEndpoint(deps, walletId, id);
  if (row.disabled_at) {
    throw new ApiError(
      "conflict",
      "This endpoint is disabled (see disabled_reason) and receives nothing; fix the receiver, then register it again.",
    );
  }
  const eventId = await enqueueTestEvent(deps.db, walletId, id, deps.clock());
  if (!eventId) throw notFound("Webhook endpoint");
  return {
    event_id: eventId,
    endpoint: await oneView(deps, await ownedEndpoint(deps, walletId, id)),
  };
}

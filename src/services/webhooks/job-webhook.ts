/**
 * A job's own webhook: checked when the job is created (https, public address — or loopback
 * when the operator allows it), and written in the create's transaction, so the job's first
 * event already finds it. Deliveries to it are signed with the wallet's default secret (made
 * when first needed).
 */

import type { Config } from "../../config.js";
import { invalidField } from "../../domain/errors.js";
import { DEFAULT_JOB_EVENTS, type JobEvent } from "../../domain/webhooks.js";
import type { Db } from "../../jobs/definition.js";
import type { Principal } from "../auth.js";
import { webhooksConfig } from "./config.js";
import { type ReceiverPolicy, ReceiverRefused, resolveReceiver } from "./receiver-url.js";

export interface JobWebhookRequest {
  url: string;
  events: readonly JobEvent[];
}

/** The operator's receiver policy from the configuration (WEBHOOK_ALLOW_HTTP_LOOPBACK). */
export function receiverPolicy(config: Partial<Pick<Config, "env">>): ReceiverPolicy {
  return { allowHttpLoopback: webhooksConfig(config.env ?? {}).allowHttpLoopback };
}

/**
 * The job's webhook from the create's fields (undefined without webhook_url), checked; 400
 * naming the field when the URL cannot receive, or when there is no key to sign for.
 */
export async function checkJobWebhook(
  receivers: ReceiverPolicy,
  principal: Principal | undefined,
  fields: { webhook_url?: string | undefined; webhook_events?: readonly JobEvent[] | undefined },
): Promise<JobWebhookRequest | undefined> {
  if (fields.webhook_url === undefined) {
    if (fields.webhook_events !== undefined) {
      throw invalidField("webhook_events", "needs webhook_url: give the URL that receives them.");
    }
    return undefined;
  }
  if (!principal) {
    throw invalidField(
      "webhook_url",
      "needs a key: deliveries are signed with your wallet's webhook secret; send Authorization: Bearer <key>.",
    );
  }
  try {
    await resolveReceiver(fields.webhook_url, receivers, "webhook_url");
  } catch (err) {
    if (err instanceof ReceiverRefused)
      throw invalidField("webhook_url", err.message.replace(/^webhook_url /, ""));
    throw err;
  }
  const events = [...new Set(fields.webhook_events ?? DEFAULT_JOB_EVENTS)];
  return { url: fields.webhook_url, events };
}

/** Writes the job's webhook inside the create's transaction. */
export async function saveJobWebhook(
  tx: Db,
  job: { id: string; walletId: string },
  hook: JobWebhookRequest,
  now: Date,
): Promise<void> {
  await tx
    .insertInto("job_webhooks")
    .values({
      job_id: job.id,
      wallet_id: job.walletId,
      url: hook.url,
      events: [...hook.events],
      created_at: now,
    })
    .execute();
}

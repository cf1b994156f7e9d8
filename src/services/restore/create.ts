/** POST /cloud/jobs: price, insert, charge (balance) in one transaction, then an upload link. */
import { invalidField } from "../../domain/errors.js";
import { RESTORE_UPLOAD_WINDOW_SEC } from "../../domain/restore/limits.js";
import {
  DEFAULT_QUALITY,
  priceRestore,
  type RestoreQuality,
  restoreLimitProblem,
  VIDEO_CONTENT_TYPES,
} from "../../domain/restore/pricing.js";
import type { Principal } from "../auth.js";
import { charge } from "../ledger.js";
import { freshPrincipal, walletView } from "../wallets.js";
import type { RestoreDeps } from "./deps.js";
import { restoreInputKey } from "./job-definition.js";
import { inTx, type RestoreJobRow } from "./store.js";
import { jobView } from "./views.js";

export interface CreateRestoreInput {
  durationSec: number;
  quality?: RestoreQuality | undefined;
  width?: number | undefined;
  height?: number | undefined;
  filename: string;
  contentType: string;
  sizeBytes: number;
  email?: string | undefined;
  payWith?: "balance" | "checkout" | undefined;
}

export function checkRestoreRequest(input: {
  durationSec: number;
  width?: number | undefined;
  height?: number | undefined;
  sizeBytes?: number | undefined;
}): void {
  const problem = restoreLimitProblem(input);
  if (problem) throw problem;
}

function checkContentType(contentType: string): string {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (!(VIDEO_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw invalidField(
      "content_type",
      `must be a video type (${VIDEO_CONTENT_TYPES.slice(0, 8).join(", ")}, …); got ${JSON.stringify(contentType.slice(0, 60))}.`,
    );
  }
  return type;
}

export async function createRestoreJob(
  p: RestoreDeps,
  principal: Principal | undefined,
  input: CreateRestoreInput,
) {
  checkRestoreRequest(input);
  const contentType = checkContentType(input.contentType);
  const fromBalance = principal !== undefined && input.payWith !== "checkout";
  if (!principal && !input.email) {
    throw invalidField(
      "email",
      "is required without a key (the checkout receipt and the result link go there); or send Authorization: Bearer <key> to pay from the balance.",
    );
  }
  const quality = input.quality ?? DEFAULT_QUALITY;
  const price = priceRestore({ ...input, quality });
  const id = p.ids("rj");
  const now = p.clock();
  const row = await inTx(p.db, async (tx) => {
    // Charge first: it locks the wallet row FOR UPDATE before the insert's foreign-key check
    // takes a share lock on it — the other order deadlocks concurrent creates of one wallet.
    if (fromBalance && principal) {
      await charge(
        tx,
        {
          walletId: principal.walletId,
          agentKeyId: principal.kind === "agent" ? principal.keyId : null,
          amountCents: price.amountCents,
          jobId: id,
          reason: `restore ${id} (${quality}, ${input.durationSec} s)`,
        },
        p.events,
      );
    }
    const inserted = await tx
      .insertInto("restore_jobs")
      .values({
        id,
        wallet_id: principal?.walletId ?? null,
        agent_key_id: principal?.kind === "agent" ? principal.keyId : null,
        email: input.email ?? null,
        status: fromBalance ? "awaiting_upload" : "pending_payment",
        quality,
        amount_cents: price.amountCents,
        duration_sec: input.durationSec,
        width: input.width ?? null,
        height: input.height ?? null,
        filename: input.filename,
        content_type: contentType,
        size_bytes: input.sizeBytes,
        paid_from_balance: fromBalance,
        payment_ref: null,
        max_attempts: p.config.workers.maxAttempts,
        input_key: restoreInputKey(id),
        created_at: now,
        updated_at: now,
        expires_at: new Date(now.getTime() + RESTORE_UPLOAD_WINDOW_SEC * 1000),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return inserted;
  });
  return createdResponse(p, principal, row, fromBalance);
}

async function createdResponse(
  p: RestoreDeps,
  principal: Principal | undefined,
  row: RestoreJobRow,
  fromBalance: boolean,
) {
  const ticket = await p.storage.presignUpload(row.input_key, {
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    expiresInSec: RESTORE_UPLOAD_WINDOW_SEC,
  });
  const job = await jobView(p, row);
  return {
    job,
    upload_url: ticket.url,
    upload_headers: ticket.headers,
    upload_expires_at: ticket.expiresAt.toISOString(),
    display_price: job.display_price,
    paid_from_balance: fromBalance,
    ...(principal ? { wallet: await walletView(p, freshPrincipal(principal)) } : {}),
  };
}

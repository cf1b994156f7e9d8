/**
 * POST /motion/jobs: refuse a prompt that breaks the content rule (nothing charged), fetch an
 * image_url safely before any money moves, then charge and insert in one transaction.
 */

import { randomInt } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { WalletView } from "../../../api/schemas.js";
import { ApiError, invalidField, refusedByRule } from "../../../domain/errors.js";
import { fetchPublicImage, ImageFetchError } from "../../../net/safe-fetch.js";
import type { Principal } from "../../../services/auth.js";
import { charge } from "../../../services/ledger.js";
import { freshPrincipal, walletView } from "../../../services/wallets.js";
import { type JobWebhookRequest, saveJobWebhook } from "../../../services/webhooks/job-webhook.js";
import { noteRefusedCharge } from "../../../services/webhooks/wallet-events.js";
import type { UploadTicket } from "../../../storage/blob-store.js";
import { checkPrompt } from "../rules/prompt-rule.js";
import {
  CLIP_IMAGE_FETCH_TIMEOUT_MS,
  CLIP_IMAGE_MAX_BYTES,
  CLIP_PRICE_CENTS,
  CLIP_SEED_MAX,
  CLIP_UPLOAD_WINDOW_SEC,
  type ClipImageType,
  type ClipSize,
} from "../rules/rules.js";
import { clipImageKey } from "./definition.js";
import type { ClipDeps } from "./deps.js";
import { type ClipRow, clipView } from "./view.js";

interface CreateClipInput {
  prompt: string;
  size: ClipSize;
  seconds: number;
  loop: boolean;
  seed?: number;
  imageUrl?: string;
  contentType?: ClipImageType;
  imageBytes?: number;
  /** The job's own webhook, already checked (services/webhooks/job-webhook.ts). */
  webhook?: JobWebhookRequest | undefined;
}

interface FetchedInput {
  tmpDir: string;
  filePath: string;
  contentType: string;
  bytes: number;
}

/** Fetches image_url under the SSRF guard; a refusal is a 400 naming the field. */
async function fetchImage(deps: ClipDeps, url: string): Promise<FetchedInput> {
  let fetched: Awaited<ReturnType<typeof fetchPublicImage>>;
  try {
    fetched = await fetchPublicImage(url, {
      maxBytes: CLIP_IMAGE_MAX_BYTES,
      timeoutMs: CLIP_IMAGE_FETCH_TIMEOUT_MS,
      field: "image_url",
      ...deps.imageFetch,
    });
  } catch (err) {
    if (err instanceof ImageFetchError) throw new ApiError("image_fetch_failed", err.message);
    throw err;
  }
  const tmpDir = await mkdtemp(path.join(tmpdir(), "kinora-clip-in-"));
  const filePath = path.join(tmpDir, "image");
  await writeFile(filePath, fetched.bytes);
  return { tmpDir, filePath, contentType: fetched.contentType, bytes: fetched.bytes.length };
}

/** Without image_bytes the link accepts up to the size limit, and start checks what arrived. */
function uploadInput(input: CreateClipInput): {
  contentType: ClipImageType;
  bytes: number | null;
} {
  if (!input.contentType) {
    throw invalidField(
      "content_type",
      "is required when no image_url is given (image/jpeg, image/png or image/webp).",
    );
  }
  return { contentType: input.contentType, bytes: input.imageBytes ?? null };
}

interface CreateClipResult {
  job: Awaited<ReturnType<typeof clipView>>;
  upload_url?: string;
  upload_headers?: Record<string, string>;
  /** The wallet as the calling key sees it after the charge. */
  wallet: WalletView;
}

/** Charges and creates a clip in one transaction (after the prompt rule and an image_url fetch). */
export async function createClip(
  deps: ClipDeps,
  principal: Principal,
  input: CreateClipInput,
): Promise<CreateClipResult> {
  const verdict = checkPrompt(input.prompt);
  if (!verdict.allowed) throw refusedByRule(verdict.code, verdict.detail);
  const upload = input.imageUrl ? undefined : uploadInput(input);
  const id = deps.ids("clip");
  const imageKey = clipImageKey(id);
  const fetched = input.imageUrl ? await fetchImage(deps, input.imageUrl) : undefined;
  try {
    if (fetched) await deps.storage.uploadFromFile(imageKey, fetched.filePath, fetched.contentType);
    const row = await insertCharged(deps, principal, input, {
      id,
      imageKey,
      contentType: fetched?.contentType ?? upload?.contentType ?? "",
      imageBytes: fetched?.bytes ?? upload?.bytes ?? null,
    }).catch(async (err) => {
      if (fetched) await deps.storage.delete(imageKey).catch(() => {});
      throw err;
    });
    deps.log.info("clip created", {
      clip_id: id,
      wallet_id: principal.walletId,
      status: row.status,
    });
    const wallet = await walletView(deps, freshPrincipal(principal));
    if (row.status === "queued") {
      await deps.notifyJobs();
      return { job: await clipView(row, deps), wallet };
    }
    const declared = row.image_bytes === null ? null : Number(row.image_bytes);
    const ticket: UploadTicket = await deps.storage.presignUpload(imageKey, {
      contentType: row.content_type,
      sizeBytes: declared ?? CLIP_IMAGE_MAX_BYTES,
      upTo: declared === null,
      expiresInSec: CLIP_UPLOAD_WINDOW_SEC,
    });
    return {
      job: await clipView(row, deps),
      upload_url: ticket.url,
      upload_headers: ticket.headers,
      wallet,
    };
  } finally {
    if (fetched) await rm(fetched.tmpDir, { recursive: true, force: true });
  }
}

async function insertCharged(
  deps: ClipDeps,
  principal: Principal,
  input: CreateClipInput,
  file: { id: string; imageKey: string; contentType: string; imageBytes: number | null },
): Promise<ClipRow> {
  const now = deps.clock();
  const amount = CLIP_PRICE_CENTS[input.size];
  const agentKeyId = principal.kind === "agent" ? principal.keyId : null;
  const queued = Boolean(input.imageUrl);
  const refused = async (err: unknown): Promise<never> => {
    await noteRefusedCharge(
      deps.db,
      { walletId: principal.walletId, agentKeyId, amountCents: amount },
      err,
    );
    throw err;
  };
  const row = await deps.db
    .transaction()
    .execute(async (tx) => {
      await charge(
        tx,
        {
          walletId: principal.walletId,
          agentKeyId,
          amountCents: amount,
          jobId: file.id,
          reason: `motion clip ${input.size}`,
          keySpentBelowCents: deps.jobKinds.cheapestCents(),
        },
        deps.events,
      );
      const inserted = await tx
        .insertInto("clips")
        .values({
          id: file.id,
          wallet_id: principal.walletId,
          agent_key_id: agentKeyId,
          status: queued ? "queued" : "awaiting_upload",
          size: input.size,
          seconds: input.seconds,
          prompt: input.prompt,
          loop: input.loop,
          // Chosen here when not given, and stored, so the same clip can be made again.
          seed: input.seed ?? randomInt(0, CLIP_SEED_MAX),
          amount_cents: amount,
          content_type: file.contentType,
          image_bytes: file.imageBytes,
          image_url: input.imageUrl ?? null,
          max_attempts: deps.config.workers.maxAttempts,
          image_key: file.imageKey,
          created_at: now,
          updated_at: now,
          queued_at: queued ? now : null,
          upload_expires_at: new Date(now.getTime() + CLIP_UPLOAD_WINDOW_SEC * 1000),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (input.webhook) {
        await saveJobWebhook(tx, { id: file.id, walletId: principal.walletId }, input.webhook, now);
      }
      return inserted;
    })
    .catch(refused);
  return row;
}

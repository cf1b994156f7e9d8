/**
 * Webhook signing secrets, Standard Webhooks ones (made by src/standard-webhooks.ts): each
 * endpoint has its own, and each wallet one default secret that signs the deliveries to its
 * jobs' own webhook_url (as Replicate does). Stored only sealed (signing.ts, purpose
 * `webhook-secret`): the database alone cannot sign; shown to the wallet key on request, never
 * logged. A secret sealed before a SIGNING_SECRET rotation is sealed again when next read.
 */
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { Signer } from "../../signing.js";
import { newWebhookSecret } from "../../standard-webhooks.js";

export const SECRET_PURPOSE = "webhook-secret";

/** What reading and sealing secrets needs. */
export interface SecretDeps {
  db: Kysely<DB>;
  signer: Signer;
  clock: () => Date;
}

/** The secret inside `sealed`, or an Error naming why it cannot be opened (never the secret). */
export function openSecret(signer: Signer, sealed: string): { plain: string; stale: boolean } {
  const opened = signer.open(SECRET_PURPOSE, sealed);
  if (!opened) {
    throw new Error(
      "the signing secret was sealed with a SIGNING_SECRET no longer configured; rotate it",
    );
  }
  return opened;
}

/** Makes sure the wallet has a default secret (inside the caller's transaction). */
export async function ensureWalletSecret(deps: SecretDeps, db: Kysely<DB>, walletId: string) {
  await db
    .insertInto("webhook_secrets")
    .values({
      wallet_id: walletId,
      sealed: deps.signer.seal(SECRET_PURPOSE, newWebhookSecret()),
      created_at: deps.clock(),
    })
    .onConflict((oc) => oc.column("wallet_id").doNothing())
    .execute();
}

/** The wallet's default secret, made on first read. */
export async function walletSecret(deps: SecretDeps, walletId: string): Promise<string> {
  await ensureWalletSecret(deps, deps.db, walletId);
  const row = await deps.db
    .selectFrom("webhook_secrets")
    .select("sealed")
    .where("wallet_id", "=", walletId)
    .executeTakeFirstOrThrow();
  const opened = openSecret(deps.signer, row.sealed);
  if (opened.stale) {
    await deps.db
      .updateTable("webhook_secrets")
      .set({ sealed: deps.signer.seal(SECRET_PURPOSE, opened.plain) })
      .where("wallet_id", "=", walletId)
      .where("sealed", "=", row.sealed)
      .execute();
  }
  return opened.plain;
}

/** A new default secret for the wallet; deliveries from now on are signed with it. */
export async function rotateWalletSecret(deps: SecretDeps, walletId: string): Promise<string> {
  const secret = newWebhookSecret();
  const now = deps.clock();
  const sealed = deps.signer.seal(SECRET_PURPOSE, secret);
  await deps.db
    .insertInto("webhook_secrets")
    .values({ wallet_id: walletId, sealed, created_at: now, rotated_at: now })
    .onConflict((oc) => oc.column("wallet_id").doUpdateSet({ sealed, rotated_at: now }))
    .execute();
  return secret;
}

/**
 * Seals again every secret sealed with a previous SIGNING_SECRET (run at start), so dropping
 * SIGNING_SECRET_PREVIOUS after a rotation loses none. Returns how many were sealed again.
 */
export async function resealStaleSecrets(deps: SecretDeps): Promise<number> {
  let n = 0;
  const wallets = await deps.db
    .selectFrom("webhook_secrets")
    .select(["wallet_id", "sealed"])
    .execute();
  for (const w of wallets) {
    const opened = deps.signer.open(SECRET_PURPOSE, w.sealed);
    if (!opened?.stale) continue;
    await deps.db
      .updateTable("webhook_secrets")
      .set({ sealed: deps.signer.seal(SECRET_PURPOSE, opened.plain) })
      .where("wallet_id", "=", w.wallet_id)
      .execute();
    n++;
  }
  const endpoints = await deps.db
    .selectFrom("webhook_endpoints")
    .select(["id", "secret_sealed"])
    .where("deleted_at", "is", null)
    .execute();
  for (const e of endpoints) {
    const opened = deps.signer.open(SECRET_PURPOSE, e.secret_sealed);
    if (!opened?.stale) continue;
    await deps.db
      .updateTable("webhook_endpoints")
      .set({ secret_sealed: deps.signer.seal(SECRET_PURPOSE, opened.plain) })
      .where("id", "=", e.id)
      .execute();
    n++;
  }
  return n;
}

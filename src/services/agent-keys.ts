/**
 * Agent keys and connected apps of a wallet: create (within the wallet's cap on active keys),
 * list, change the limit, revoke. A connected app is an agent key whose secrets are OAuth tokens.
 */

import { sql } from "kysely";
import type { AgentKeyView } from "../api/schemas.js";
import { conflict, invalidField, notFound, wrongState } from "../domain/errors.js";
import { hashSecret, newSecret } from "../domain/ids.js";
import { AGENT_KEY_LIMIT_CENTS } from "../domain/limits.js";
import { displayCents } from "../domain/money.js";
import type { CoreDeps } from "./deps.js";
import { agentKeyView, KEY_COLUMNS } from "./wallets.js";

/** When no cap is given (tests, tools): the default of MAX_AGENT_KEYS. */
const DEFAULT_MAX_ACTIVE_KEYS = 100;

function checkLimit(limitCents: number) {
  const { min, max } = AGENT_KEY_LIMIT_CENTS;
  if (!Number.isSafeInteger(limitCents) || limitCents < min || limitCents > max) {
    throw invalidField("limit_cents", `must be an integer from ${min} to ${max}.`);
  }
}

/**
 * The owner's threshold (`ask_above_cents`) against the key's limit: null asks for every
 * purchase; otherwise an integer from 0 to the limit (above the limit it could never ask:
 * that is `ask_before_spending: false`, said as such).
 */
function checkAskAbove(askAboveCents: number | null | undefined, limitCents: number) {
  if (askAboveCents === null || askAboveCents === undefined) return;
  if (!Number.isSafeInteger(askAboveCents) || askAboveCents < 0) {
    throw invalidField(
      "ask_above_cents",
      "must be an integer number of cents, 0 or more, or null.",
    );
  }
  if (askAboveCents > limitCents) {
    throw invalidField(
      "ask_above_cents",
      `must be at most the key's limit (${displayCents(limitCents)}); to never ask, set ask_before_spending to false.`,
    );
  }
}

interface KeyValues {
  key_hash: string;
  label: string;
  kind: "agent" | "connected_app";
  ask_before_spending: boolean;
  ask_above_cents: number | null;
  limit_cents: number;
  client_id?: string;
  redirect_host?: string;
}

/**
 * Inserts a key unless the wallet already has `maxActive` unrevoked ones. The wallet row is
 * locked first, so two concurrent creates cannot both slip under the cap.
 */
async function insertKey(deps: CoreDeps, walletId: string, values: KeyValues, maxActive: number) {
  return deps.db.transaction().execute(async (tx) => {
    await sql`SELECT id FROM wallets WHERE id = ${walletId} FOR UPDATE`.execute(tx);
    const active = await tx
      .selectFrom("agent_keys")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("wallet_id", "=", walletId)
      .where("revoked_at", "is", null)
      .executeTakeFirstOrThrow();
    if (Number(active.n) >= maxActive) {
      throw conflict(
        `This wallet already has ${maxActive} active agent keys and connected apps (the most allowed); revoke some first.`,
      );
    }
    return tx
      .insertInto("agent_keys")
      .values({ id: deps.ids("key"), wallet_id: walletId, created_at: deps.clock(), ...values })
      .returning(KEY_COLUMNS)
      .executeTakeFirstOrThrow();
  });
}

/** A new agent key for a wallet: its secret (returned once) and its view. */
export async function createAgentKey(
  deps: CoreDeps,
  walletId: string,
  input: {
    label?: string;
    limitCents: number;
    askBeforeSpending?: boolean;
    askAboveCents?: number | null;
    maxActive?: number;
  },
) {
  checkLimit(input.limitCents);
  checkAskAbove(input.askAboveCents, input.limitCents);
  const key = newSecret("pak");
  const row = await insertKey(
    deps,
    walletId,
    {
      key_hash: hashSecret(key),
      label: input.label ?? "",
      kind: "agent",
      ask_before_spending: input.askBeforeSpending ?? true,
      ask_above_cents: input.askAboveCents ?? null,
      limit_cents: input.limitCents,
    },
    input.maxActive ?? DEFAULT_MAX_ACTIVE_KEYS,
  );
  deps.log.info("agent key created", { wallet_id: walletId, key_id: row.id });
  return { key, agent_key: agentKeyView(row) };
}

/** A wallet's agent keys and connected apps, newest first. */
export async function listAgentKeys(deps: CoreDeps, walletId: string) {
  const rows = await deps.db
    .selectFrom("agent_keys")
    .select(KEY_COLUMNS)
    .where("wallet_id", "=", walletId)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map(agentKeyView);
}

/**
 * A connected app: an agent key with a limit whose secrets are OAuth tokens, not a pak_ string
 * (its key_hash is the digest of a random value nobody holds, so no key can ever match it).
 */
export async function createConnectedApp(
  deps: CoreDeps,
  walletId: string,
  input: {
    clientId: string;
    clientName: string;
    redirectHost: string;
    limitCents: number;
    askBeforeSpending: boolean;
    askAboveCents?: number | null;
    maxActive?: number;
  },
): Promise<AgentKeyView> {
  checkLimit(input.limitCents);
  checkAskAbove(input.askAboveCents, input.limitCents);
  const row = await insertKey(
    deps,
    walletId,
    {
      key_hash: hashSecret(newSecret("pak")),
      label: input.clientName.slice(0, 100),
      kind: "connected_app",
      ask_before_spending: input.askBeforeSpending,
      ask_above_cents: input.askAboveCents ?? null,
      limit_cents: input.limitCents,
      client_id: input.clientId,
      redirect_host: input.redirectHost,
    },
    input.maxActive ?? DEFAULT_MAX_ACTIVE_KEYS,
  );
  deps.log.info("connected app allowed", { wallet_id: walletId, key_id: row.id });
  return agentKeyView(row);
}

/**
 * Idempotent: revoking a revoked key returns it unchanged. Another wallet's key is a 404. A
 * connected app's tokens are revoked with it (authentication checks the key as well).
 */
export async function revokeAgentKey(deps: CoreDeps, walletId: string, keyId: string) {
  const now = deps.clock();
  await deps.db
    .updateTable("agent_keys")
    .set({ revoked_at: now })
    .where("id", "=", keyId)
    .where("wallet_id", "=", walletId)
    .where("revoked_at", "is", null)
    .execute();
  await deps.db
    .updateTable("oauth_tokens")
    .set({ revoked_at: now })
    .where("agent_key_id", "=", keyId)
    .where("revoked_at", "is", null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("agent_keys")
          .select("id")
          .where("id", "=", keyId)
          .where("wallet_id", "=", walletId),
      ),
    )
    .execute();
  const row = await deps.db
    .selectFrom("agent_keys")
    .select(KEY_COLUMNS)
    .where("id", "=", keyId)
    .where("wallet_id", "=", walletId)
    .executeTakeFirst();
  if (!row) throw notFound("Agent key");
  deps.log.info("agent key revoked", { wallet_id: walletId, key_id: keyId });
  return agentKeyView(row);
}

/** What the owner changes on a key: its limit, its threshold, or both (absent: unchanged). */
export interface KeyChange {
  limitCents?: number | undefined;
  /** null: ask for every purchase again. */
  askAboveCents?: number | null | undefined;
}

/**
 * Sets an agent key's (or connected app's) limit and/or the threshold below which it does not
 * ask (the owner's calls only: the wallet key, the console). The limit never goes below what
 * the key already spent, nothing changes on a revoked key. A limit change is a ledger entry that
 * moves no money (`key_limit`), written in the same transaction, so the wallet's history shows
 * who may spend what since when. The wallet and key rows are locked as a charge locks them, so a
 * racing charge sees the old values or the new. Setting what it already has writes nothing.
 */
export async function changeKey(
  deps: CoreDeps,
  walletId: string,
  keyId: string,
  change: KeyChange,
): Promise<AgentKeyView> {
  if (change.limitCents === undefined && change.askAboveCents === undefined) {
    throw invalidField("limit_cents", "give limit_cents, ask_above_cents or both.");
  }
  if (change.limitCents !== undefined) checkLimit(change.limitCents);
  const row = await deps.db.transaction().execute(async (tx) => {
    // Locks in the order charges take them (ledger.ts: the wallet, then the key): the ledger
    // entry below takes a share lock on the wallet row, which would deadlock against a charge
    // holding the wallet and waiting for this key.
    await tx.selectFrom("wallets").select("id").where("id", "=", walletId).forUpdate().execute();
    const key = await tx
      .selectFrom("agent_keys")
      .select(KEY_COLUMNS)
      .where("id", "=", keyId)
      .where("wallet_id", "=", walletId)
      .forUpdate()
      .executeTakeFirst();
    if (!key) throw notFound("Agent key");
    if (key.revoked_at !== null) {
      throw wrongState("This key is revoked; its limit can no longer change. Create a new key.");
    }
    const spent = Number(key.spent_cents);
    const before = Number(key.limit_cents);
    const limitCents = change.limitCents ?? before;
    if (limitCents < spent) {
      throw invalidField(
        "limit_cents",
        `must be at least ${spent}, what this key already spent (${displayCents(spent)}).`,
      );
    }
    const askAbove =
      change.askAboveCents === undefined ? key.ask_above_cents : change.askAboveCents;
    // A new threshold is checked against the limit it will have; a lowered limit leaves an old
    // threshold above it, which asks for nothing more than the limit allows anyway.
    if (change.askAboveCents !== undefined) checkAskAbove(askAbove, limitCents);
    if (limitCents === before && askAbove === key.ask_above_cents) return key;
    const changed = await tx
      .updateTable("agent_keys")
      .set({ limit_cents: limitCents, ask_above_cents: askAbove })
      .where("id", "=", keyId)
      .returning(KEY_COLUMNS)
      .executeTakeFirstOrThrow();
    if (limitCents === before) return changed;
    await tx
      .insertInto("ledger_entries")
      .values({
        wallet_id: walletId,
        agent_key_id: keyId,
        kind: "key_limit",
        amount_cents: 0,
        reason: `limit of ${key.label || keyId} changed from ${displayCents(before)} to ${displayCents(limitCents)}`,
      })
      .execute();
    return changed;
  });
  deps.log.info("agent key changed", { wallet_id: walletId, key_id: keyId });
  return agentKeyView(row);
}

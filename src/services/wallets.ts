/** Wallets and their agent keys: creation, the Wallet view each key sees, revocation, pausing. */
import type { AgentKeyView, WalletView } from "../api/schemas.js";
import { notFound, unauthorized } from "../domain/errors.js";
import { hashSecret, newSecret } from "../domain/ids.js";
import { LABEL_MAX_LENGTH } from "../domain/limits.js";
import { inertName } from "../domain/text.js";
import type { Principal, PrincipalSnapshot } from "./auth.js";
import type { CoreDeps } from "./deps.js";

interface AgentKeyRow {
  id: string;
  label: string;
  kind: "agent" | "connected_app";
  ask_before_spending: boolean;
  ask_above_cents: number | null;
  limit_cents: number;
  spent_cents: number;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  client_id?: string | null;
  redirect_host?: string | null;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function agentKeyView(row: AgentKeyRow): AgentKeyView {
  // A connected app's label is the name the app gave itself: every surface (API, console, CLI)
  // gets it inert, also when it was stored before names were made inert at registration.
  const label =
    row.kind === "connected_app" ? inertName(row.label ?? "", LABEL_MAX_LENGTH) : row.label;
  return {
    id: row.id,
    label,
    limit_cents: row.limit_cents,
    spent_cents: row.spent_cents,
    remaining_cents: row.limit_cents - row.spent_cents,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: iso(row.last_used_at),
    revoked: row.revoked_at !== null,
    kind: row.kind,
    ask_before_spending: row.ask_before_spending,
    ask_above_cents: row.ask_above_cents,
    ...(row.kind === "connected_app" && row.client_id
      ? {
          connected_app: {
            client_id: row.client_id,
            client_name: label,
            redirect_host: row.redirect_host ?? null,
          },
        }
      : {}),
  };
}

export const KEY_COLUMNS = [
  "id",
  "label",
  "kind",
  "ask_before_spending",
  "ask_above_cents",
  "limit_cents",
  "spent_cents",
  "created_at",
  "last_used_at",
  "revoked_at",
  "client_id",
  "redirect_host",
] as const;

/** A new wallet and its wallet key (the secret returned once). */
export async function createWallet(deps: CoreDeps, input: { email?: string | null }) {
  const key = newSecret("pmk");
  const id = deps.ids("wal");
  await deps.db
    .insertInto("wallets")
    .values({ id, key_hash: hashSecret(key), email: input.email ?? null, created_at: deps.clock() })
    .execute();
  deps.log.info("wallet created", { wallet_id: id });
  return { key, wallet: await walletView(deps, { kind: "wallet", walletId: id }) };
}

/** The Wallet as the calling key sees it: the email only for the wallet key. */
export async function walletView(deps: CoreDeps, principal: Principal): Promise<WalletView> {
  const snap = principal.snapshot ?? (await loadSnapshot(deps, principal));
  const base = {
    wallet_id: principal.walletId,
    balance_cents: snap.balanceCents,
    paused: snap.paused,
  };
  if (principal.kind === "wallet") {
    return { ...base, spendable_cents: snap.paused ? 0 : snap.balanceCents, email: snap.email };
  }
  const k = snap.key;
  if (!k) throw new Error("agent principal without key snapshot");
  const view = agentKeyView({
    id: principal.keyId,
    label: k.label,
    kind: k.kind,
    ask_before_spending: k.askBeforeSpending,
    ask_above_cents: k.askAboveCents,
    limit_cents: k.limitCents,
    spent_cents: k.spentCents,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked_at: null,
  });
  const spendable = snap.paused ? 0 : Math.min(snap.balanceCents, view.remaining_cents);
  return { ...base, spendable_cents: spendable, agent_key: view };
}

/** Fresh rows for a principal, e.g. after a charge changed them within the same request. */
async function loadSnapshot(deps: CoreDeps, principal: Principal): Promise<PrincipalSnapshot> {
  const wallet = await deps.db
    .selectFrom("wallets")
    .select(["email", "balance_cents", "paused"])
    .where("id", "=", principal.walletId)
    .executeTakeFirst();
  if (!wallet) throw unauthorized("The wallet of this key no longer exists.");
  const snap: PrincipalSnapshot = {
    balanceCents: wallet.balance_cents,
    paused: wallet.paused,
    email: wallet.email,
  };
  if (principal.kind === "agent") {
    const key = await deps.db
      .selectFrom("agent_keys")
      .select(KEY_COLUMNS)
      .where("id", "=", principal.keyId)
      .executeTakeFirstOrThrow();
    snap.key = {
      label: key.label,
      kind: key.kind,
      askBeforeSpending: key.ask_before_spending,
      askAboveCents: key.ask_above_cents,
      limitCents: key.limit_cents,
      spentCents: key.spent_cents,
      createdAt: key.created_at,
      lastUsedAt: key.last_used_at,
    };
  }
  return snap;
}

/** Drops the auth-time snapshot so the next walletView reads the rows again. */
export function freshPrincipal(principal: Principal): Principal {
  const { snapshot: _ignored, ...rest } = principal;
  // cast: only the optional snapshot was taken out; what is left is a Principal
  return rest as Principal;
}

/** Operator switch: a paused wallet keeps its balance and can be read and topped up, but cannot spend. */
export async function setWalletPaused(
  deps: CoreDeps,
  walletId: string,
  paused: boolean,
  reason: string | null,
) {
  const row = await deps.db
    .updateTable("wallets")
    .set({ paused, paused_reason: paused ? reason : null })
    .where("id", "=", walletId)
    .returning(["id", "paused", "balance_cents", "paused_reason"])
    .executeTakeFirst();
  if (!row) throw notFound("Wallet");
  deps.log.info(paused ? "wallet paused" : "wallet unpaused", { wallet_id: walletId, reason });
  return row;
}

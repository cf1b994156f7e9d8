/**
 * Resolves a bearer secret to the principal it stands for. Keys are looked up by their
 * SHA-256 digest (the secret itself is never stored) and the digest is compared again in
 * constant time. Revocation takes effect on the next request: nothing is cached.
 */
import { unauthorized } from "../domain/errors.js";
import { constantTimeEqualHex, hashSecret } from "../domain/ids.js";
import type { CoreDeps } from "./deps.js";

export type Principal =
  | { kind: "wallet"; walletId: string }
  | { kind: "agent"; walletId: string; keyId: string };

export const KEY_PATTERN = /^(pmk|pak)_[0-9A-Za-z]{20,64}$/;

export async function authenticate(deps: CoreDeps, secret: string): Promise<Principal> {
  if (!KEY_PATTERN.test(secret)) {
    throw unauthorized("The API key is not valid: expected a pmk_ wallet key or a pak_ agent key.");
  }
  const digest = hashSecret(secret);
  if (secret.startsWith("pmk_")) {
    const wallet = await deps.db
      .selectFrom("wallets")
      .select(["id", "key_hash"])
      .where("key_hash", "=", digest)
      .executeTakeFirst();
    if (!wallet || !constantTimeEqualHex(wallet.key_hash, digest)) {
      throw unauthorized("Unknown API key; check the key or create a wallet with POST /wallet.");
    }
    return { kind: "wallet", walletId: wallet.id };
  }
  const key = await deps.db
    .selectFrom("agent_keys")
    .select(["id", "wallet_id", "key_hash", "revoked_at"])
    .where("key_hash", "=", digest)
    .executeTakeFirst();
  if (!key || !constantTimeEqualHex(key.key_hash, digest)) {
    throw unauthorized("Unknown API key; check the key or ask the wallet owner for a new one.");
  }
  if (key.revoked_at) {
    throw unauthorized("This agent key has been revoked; ask the wallet owner for a new key.");
  }
  return { kind: "agent", walletId: key.wallet_id, keyId: key.id };
}

/** The agent key id that pays for (and owns) what this principal starts; null for the wallet key. */
export function spenderKeyId(principal: Principal): string | null {
  return principal.kind === "agent" ? principal.keyId : null;
}

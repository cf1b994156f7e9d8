/**
 * The 2026-07-28 multi-round `requestState`: an opaque string a tool hands the client with an
 * `inputRequired` result and the client echoes back with its answers, to any node. It is a
 * kinora token (src/signing.ts: purpose, expiry, rotating key) bound to the calling key, so a
 * state minted for one key never verifies for another, and a forged or expired one is refused
 * by the SDK before any handler runs (a -32602 "Invalid or expired requestState").
 */
import type { Signer } from "../signing.js";

const PURPOSE = "mcp-request-state";

/** How long a client may take to answer (a person reading a confirmation). */
export const REQUEST_STATE_TTL_MS = 10 * 60_000;

/** The state a tool returns with `inputRequired`, carrying `claims` for the next round. */
export function mintRequestState(
  signer: Signer,
  keyId: string,
  claims: Record<string, unknown>,
  nowMs: number,
): string {
  return signer.sign(PURPOSE, { ...claims, key: keyId }, nowMs + REQUEST_STATE_TTL_MS);
}

/** The claims of an echoed state when it is ours, unexpired and this key's; throws otherwise. */
export function verifyRequestState(
  signer: Signer,
  keyId: string,
  state: string,
  nowMs: number,
): Record<string, unknown> {
  const claims = signer.verify<Record<string, unknown>>(PURPOSE, state, nowMs);
  // The reason goes to the server's onerror only; the client always reads the same refusal.
  if (!claims) throw new Error("requestState is not a valid kinora token");
  if (claims.key !== keyId) throw new Error("requestState was minted for another key");
  return claims;
}

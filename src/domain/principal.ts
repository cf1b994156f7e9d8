/**
 * Who is calling: a wallet's own key, or an agent key (or a connected app's token, which acts as
 * an agent key) of that wallet — with the rows as read when the key was checked.
 */

/** The wallet (and key) as read while authenticating. */
export interface PrincipalSnapshot {
  balanceCents: number;
  paused: boolean;
  email: string | null;
  key?: {
    label: string;
    kind: "agent" | "connected_app";
    askBeforeSpending: boolean;
    /** A key that asks does not ask for a price at or below this (null: asks for every one). */
    askAboveCents: number | null;
    limitCents: number;
    spentCents: number;
    createdAt: Date;
    lastUsedAt: Date | null;
  };
}

/** The caller of an operation, resolved from its key or token. */
export type Principal = (
  | { kind: "wallet"; walletId: string }
  | { kind: "agent"; walletId: string; keyId: string }
) & {
  /**
   * The rows as read while authenticating this request (or as last read, from a key cache that
   * every write to them empties).
   */
  snapshot?: PrincipalSnapshot;
};

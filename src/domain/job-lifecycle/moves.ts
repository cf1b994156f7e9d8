/**
 * The shape every job kind's transition table has: named moves, each from a set of statuses
 * to one, refunding or not. The job engine changes a status only by naming a move, as a
 * conditional `UPDATE … WHERE status IN (from)`, so racing actors (start, cancel, a worker,
 * the sweeper) have exactly one winner.
 */
export interface Move<S extends string = string> {
  from: readonly S[];
  to: S;
  /** The job's charge goes back to the balance and key allowance in the same transaction. */
  refunds: boolean;
  /** Why this move happens (kept on refund ledger entries). */
  why: string;
}

/** Moves the engine itself makes; every kind's table defines them. */
const ENGINE_MOVES = ["claim", "requeue", "release", "complete", "fail", "refuse"] as const;
/** A move the job engine makes for every kind (claim, requeue, release, complete, fail, refuse). */
export type EngineMove = (typeof ENGINE_MOVES)[number];

/** A kind's transition table: the engine's moves and its own, each `{from, to, refunds, why}`. */
export type MoveTable<S extends string, M extends string = string> = Record<
  M | EngineMove,
  Move<S>
>;

/** The moves that lead out of `status` (for docs and tests). */
export function movesFrom<S extends string>(table: MoveTable<S>, status: S): string[] {
  return Object.entries<Move<S>>(table)
    .filter(([, m]) => m.from.includes(status))
    .map(([name]) => name);
}

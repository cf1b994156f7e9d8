/**
 * The plans of the local store's uploads in parts, kept in memory once read or written: a plan
 * never changes after its upload is created, and every part's PUT needs it before its first
 * byte. Read from disk each time it was four thread-pool round trips (readFile's open, stat,
 * read, close), each a turn of an event loop busy with the other parts' sockets.
 *
 * A plan kept here says nothing about whether its upload is still open: the part's writer
 * learns that by opening the data file, which a completion or an abort has taken away. So an
 * entry left behind (an upload swept by retention) is harmless, and the oldest are let go past
 * a bound.
 */

/** Plans kept at most: a few hundred bytes each; far more uploads than one node has open. */
const MAX_PLANS = 1024;

/** Plans by the upload's folder. */
export interface PlanCache<Plan> {
  /** The folder's plan: kept, or `load`ed (and kept when there is one). */
  get(dir: string, load: () => Promise<Plan | null>): Promise<Plan | null>;
  set(dir: string, plan: Plan): void;
  /** The upload was completed or aborted. */
  forget(dir: string): void;
}

/** An empty cache for one local store. */
export function createPlanCache<Plan>(): PlanCache<Plan> {
  const plans = new Map<string, Plan>();
  const set = (dir: string, plan: Plan) => {
    plans.delete(dir);
    plans.set(dir, plan);
    // A Map iterates in insertion order: the first key is the longest kept.
    for (const oldest of plans.keys()) {
      if (plans.size <= MAX_PLANS) break;
      plans.delete(oldest);
    }
  };
  return {
    async get(dir, load) {
      const kept = plans.get(dir);
      if (kept) return kept;
      const plan = await load();
      if (plan) set(dir, plan);
      return plan;
    },
    set,
    forget: (dir) => void plans.delete(dir),
  };
}

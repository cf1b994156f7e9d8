/**
 * In-process rendezvous between webhook deliveries and the code waiting for a prediction.
 *
 * Webhooks are retried and may arrive duplicated, out of order, or before anyone waits, so
 * `deliver` is idempotent: a terminal state is final (the first terminal delivery wins),
 * an older status never replaces a newer one, and deliveries nobody waits for yet are kept
 * for `keepMs`. Entries are bounded in number and age (limits on everything).
 *
 * This is per process: with several API nodes, the node that receives a webhook must be the
 * one that waits, or the waiting side falls back to polling (`CogClient.run` does both).
 */
import {
  type FinalPrediction,
  finalize,
  isTerminal,
  type Prediction,
  statusRank,
} from "./prediction.js";

/** How long webhook deliveries and final states are kept for waiters. */
export interface PredictionWaiterOptions {
  /** How long a delivery is kept without a waiter, and a final state after it. */
  keepMs?: number;
  /** Cap on tracked predictions; the oldest idle ones are dropped first. */
  maxEntries?: number;
  /** Injected clock (ms). */
  now?: () => number;
}

interface Waiting {
  resolve: (p: FinalPrediction) => void;
  onUpdate?: (p: Prediction) => void;
}

interface Entry {
  latest?: Prediction;
  final?: FinalPrediction;
  touchedAt: number;
  waiting: Set<Waiting>;
}

function logsLength(p: Prediction | undefined): number {
  return p?.logs?.length ?? 0;
}

export class PredictionWaiter {
  private readonly entries = new Map<string, Entry>();
  private readonly keepMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: PredictionWaiterOptions = {}) {
    this.keepMs = opts.keepMs ?? 5 * 60_000;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Records a delivery. Returns true when it changed what waiters see, false when it was a
   * duplicate or older than what is already known.
   */
  deliver(prediction: Prediction): boolean {
    this.prune();
    const entry = this.entry(prediction.id);
    entry.touchedAt = this.now();
    if (entry.final) return false;
    const latest = entry.latest;
    if (latest) {
      const older = statusRank(prediction.status) < statusRank(latest.status);
      // Same non-terminal status: logs only grow, so shorter logs mean an older delivery.
      const stale =
        prediction.status === latest.status && logsLength(prediction) <= logsLength(latest);
      if (older || stale) return false;
    }
    entry.latest = prediction;
    if (isTerminal(prediction.status)) {
      const final = finalize({ ...prediction, status: prediction.status });
      entry.final = final;
      for (const w of entry.waiting) w.resolve(final);
      entry.waiting.clear();
    } else {
      for (const w of entry.waiting) w.onUpdate?.(prediction);
    }
    return true;
  }

  /**
   * Resolves with the terminal prediction once delivered (at once if it already was);
   * rejects with the signal's reason on abort. `onUpdate` sees non-terminal deliveries.
   */
  wait(
    id: string,
    signal?: AbortSignal,
    onUpdate?: (p: Prediction) => void,
  ): Promise<FinalPrediction> {
    this.prune();
    const entry = this.entry(id);
    entry.touchedAt = this.now();
    if (entry.final) return Promise.resolve(entry.final);
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (entry.latest) onUpdate?.(entry.latest);
    return new Promise<FinalPrediction>((resolve, reject) => {
      const onAbort = () => {
        entry.waiting.delete(waiting);
        reject(signal?.reason);
      };
      const waiting: Waiting = {
        resolve: (p) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(p);
        },
        onUpdate,
      };
      entry.waiting.add(waiting);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The newest state delivered for a prediction, if still kept. */
  latest(id: string): Prediction | undefined {
    return this.entries.get(id)?.latest;
  }

  /** Number of tracked predictions (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  private entry(id: string): Entry {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { touchedAt: this.now(), waiting: new Set() };
      this.entries.set(id, entry);
    }
    return entry;
  }

  private prune(): void {
    const cutoff = this.now() - this.keepMs;
    let excess = this.entries.size - this.maxEntries + 1;
    // Map order is insertion order, so the oldest entries come first.
    for (const [id, entry] of this.entries) {
      if (entry.waiting.size > 0) continue;
      if (entry.touchedAt < cutoff || excess > 0) {
        this.entries.delete(id);
        excess--;
      }
    }
  }
}

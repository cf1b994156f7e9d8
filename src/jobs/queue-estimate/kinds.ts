/**
 * What the queue estimate needs to know of each job kind, and the list of kinds a server runs.
 * Workers take jobs of every kind from one line (oldest first, work-source.ts), so a job's
 * estimate counts the other kinds' jobs ahead of it and running on the workers: one kind's
 * view alone cannot see a worker busy with another kind's job.
 */
import type { JobColumns, JobDefinition } from "../definition.js";

/**
 * A definition as the estimate (and the metrics of every kind's table) read it, and its
 * `stopUnits` and `unitCounts` (a parent's cancel stops its child units, and its view counts
 * them, through the same list).
 */
export type EstimatedKind<Row extends JobColumns = JobColumns> = Pick<
  JobDefinition<Row>,
  | "kind"
  | "table"
  | "waiting"
  | "running"
  | "estimate"
  | "moves"
  | "final"
  | "cheapestCents"
  | "stopUnits"
  | "unitCounts"
>;

/** The job kinds whose queues this server serves, in the order workers list them. */
export interface JobKindRegistry {
  /** Adds a kind (its feature's queue does, once per platform); a kind added again replaces. */
  register(kind: EstimatedKind): void;
  /** Every kind registered, in registration order. */
  all(): readonly EstimatedKind[];
  /** The least any registered kind's job costs; undefined before any kind registered. */
  cheapestCents(): number | undefined;
}

/** An empty registry, filled as the kinds' features build their queues. */
export function createJobKindRegistry(): JobKindRegistry {
  const kinds = new Map<string, EstimatedKind>();
  return {
    register: (kind) => {
      kinds.set(kind.kind, kind);
    },
    all: () => [...kinds.values()],
    cheapestCents: () => {
      const prices = [...kinds.values()].map((k) => k.cheapestCents);
      return prices.length > 0 ? Math.min(...prices) : undefined;
    },
  };
}

/**
 * Child units: a job whose work is split into units of another kind (a long restore's
 * segments). The parent's attempt ends by handing off (its definition's `finish` answers
 * `{ handOff }`): in one transaction its lease passes to CHILD_UNITS_OWNER, never lapsing, and
 * the child kind's `spawn` inserts the units. The units are jobs of their own kind in their own
 * table — claimed, leased, heartbeated and retried by any worker through the same queues — and
 * carry no charge. The child kind ends the parent through the parent's own queue, as the lease
 * holder (`parentQueue(...).complete(id, CHILD_UNITS_OWNER, …)` or `.fail`), so the parent's
 * `finish`, refund (exactly once: the move is conditional) and webhooks run as for any job.
 * A caller who ends the parent itself (a cancel) stops its units through `stopChildUnits`.
 */
import type { ChildStopDeps, Db, JobDefinition, UnitCounts } from "./definition.js";

/** The lease owner of a job handed to its child units. */
export const CHILD_UNITS_OWNER = "child-units";

/**
 * The lease expiry of a handed-off job: never (lease recovery leaves it alone; the child units'
 * own leases lapse and are retried instead).
 */
export const CHILD_UNITS_LEASE = new Date("9999-12-31T00:00:00Z");

/**
 * Stops the child units of `parentId` (of kind `childKind`, among the kinds the server serves)
 * after its owner ended it, and deletes their files: the child kind's `stopUnits`. A running
 * unit's worker sees its lease gone at its next heartbeat and stops. 0 when the kind is not
 * served (then no unit was ever made) or the parent had none.
 */
export async function stopChildUnits(
  deps: ChildStopDeps,
  kinds: readonly Pick<JobDefinition, "kind" | "stopUnits">[],
  childKind: string,
  parentId: string,
): Promise<number> {
  const child = kinds.find((k) => k.kind === childKind);
  return child?.stopUnits ? child.stopUnits(deps, parentId) : 0;
}

/**
 * How far the child units (of kind `childKind`) of each of `parentIds` are, for the parents'
 * views; a parent without units is absent (an empty map when the kind is not served).
 */
export async function childUnitCounts(
  db: Db,
  kinds: readonly Pick<JobDefinition, "kind" | "unitCounts">[],
  childKind: string,
  parentIds: readonly string[],
): Promise<Map<string, UnitCounts>> {
  const child = kinds.find((k) => k.kind === childKind);
  if (!child?.unitCounts || parentIds.length === 0) return new Map();
  return child.unitCounts(db, parentIds);
}

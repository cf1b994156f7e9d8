/**
 * Retention, written once for every kind: each of a kind's rules finds jobs in some statuses
 * whose deadline passed, deletes their files and makes the rule's move (conditional on the
 * deadline still being past, so a sweep racing a start, a payment or a worker has one winner),
 * or only deletes the files of jobs that already ended. Time comes from the injected clock.
 * Composition runs a pass periodically for every kind (kinds/kind.ts).
 */
import { sql } from "kysely";
import type { JobColumns, JobDefinition, JobEngineDeps } from "./definition.js";
import { assignments, moveJob } from "./move.js";

const BATCH = 100;

/** One pass over a kind's rules; how many jobs each rule handled. */
export async function sweepJobs<Row extends JobColumns>(
  def: JobDefinition<Row>,
  deps: JobEngineDeps,
): Promise<number[]> {
  const now = deps.clock();
  const counts: number[] = [];
  for (const rule of def.retention(deps)) {
    const before = rule.due.before(now);
    const column = sql.ref(rule.due.column);
    const filesLeft = rule.move ? sql`` : sql`AND files_deleted_at IS NULL`;
    const due = await sql<Row>`
      SELECT * FROM ${sql.table(def.table)}
      WHERE status IN (${sql.join([...rule.statuses])}) AND ${column} < ${before} ${filesLeft}
      ORDER BY ${column} LIMIT ${BATCH}`.execute(deps.db);
    let n = 0;
    for (const row of due.rows) {
      await Promise.all(def.files(row).map((key) => deps.storage.delete(key)));
      if (rule.move) {
        const set = { ...rule.set?.(row, now), files_deleted_at: now };
        const guard = { due: { column: rule.due.column, before }, events: deps.events };
        if (await moveJob(deps.db, def, row.id, rule.move, now, set, guard)) n++;
      } else {
        await sql`UPDATE ${sql.table(def.table)}
          SET ${assignments({ files_deleted_at: now, updated_at: now })}
          WHERE id = ${row.id} AND files_deleted_at IS NULL`.execute(deps.db);
        n++;
      }
    }
    counts.push(n);
  }
  return counts;
}

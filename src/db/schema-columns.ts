/** The column types the table types share (timestamps as Kysely reads and writes them). */
import type { ColumnType } from "kysely";

/** A timestamp column: read as a Date, written as a Date or an ISO string. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A timestamp column that may be NULL. */
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

/**
 * Keyset pagination for "newest first" lists: the cursor is the (created_at, id) of the last
 * item of the previous page — opaque to callers, stable while new items arrive, and served by
 * the (owner, created_at) indexes. Nothing secret is in a cursor.
 */
import type { Kysely, Selectable } from "kysely";
import type { DB } from "../db/schema.js";
import { invalidField } from "../domain/errors.js";
import type { Principal } from "./auth.js";

interface CursorPosition {
  createdAt: Date;
  id: string;
}

/** A page request: how many, and the cursor of the previous page. */
export interface PageInput {
  limit?: number;
  cursor?: string;
}

function encodeCursor(pos: CursorPosition): string {
  return Buffer.from(`${pos.createdAt.getTime()}.${pos.id}`, "utf8").toString("base64url");
}

/** The position in `cursor`, which must name an id with `prefix` (rj, clip …); else 400. */
function decodeCursor(cursor: string, prefix: string): CursorPosition {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = new RegExp(`^(\\d{1,15})\\.(${prefix}_[0-9A-Za-z]{1,64})$`).exec(text);
  if (!match) {
    throw invalidField(
      "cursor",
      "is not a cursor from this list; pass next_cursor as it was given.",
    );
  }
  // cast: group 2 is not optional in the pattern: a match always has it
  return { createdAt: new Date(Number(match[1])), id: match[2] as string };
}

/**
 * A job kind's table: each has the job engine's columns (wallet_id, agent_key_id, created_at);
 * a kind's folder adds its table to DB.
 */
type OwnedJobTable = keyof DB;

/**
 * One page of the caller's jobs of one kind, newest first: the wallet's, or only an agent key's
 * own. One extra row tells whether another page exists, without a count query.
 */
export async function ownedJobsPage<T extends OwnedJobTable>(
  db: Kysely<DB>,
  table: T,
  principal: Principal,
  opts: { limit: number; cursor?: string; idPrefix: string },
): Promise<{ rows: Selectable<DB[T]>[]; nextCursor: string | null }> {
  const after = opts.cursor === undefined ? undefined : decodeCursor(opts.cursor, opts.idPrefix);
  // Every job table has these columns; Kysely cannot see that through a generic table name.
  // cast: every job table has these columns; Kysely cannot see that through a table name chosen at run time
  // biome-ignore lint/suspicious/noExplicitAny: the one place a job table is chosen at run time
  let q = (db as Kysely<any>)
    .selectFrom(table)
    .selectAll()
    .where("wallet_id", "=", principal.walletId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(opts.limit + 1);
  if (principal.kind === "agent") q = q.where("agent_key_id", "=", principal.keyId);
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb("created_at", "<", after.createdAt),
        eb.and([eb("created_at", "=", after.createdAt), eb("id", "<", after.id)]),
      ]),
    );
  }
  const rows = await q.execute();
  const page = rows.slice(0, opts.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > opts.limit && last
      ? encodeCursor({ createdAt: new Date(last.created_at), id: last.id })
      : null;
  // cast: the rows are of table T, selected whole (selectAll) from it above
  return { rows: page as Selectable<DB[T]>[], nextCursor };
}

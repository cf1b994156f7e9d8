/**
 * Keyset pagination for "newest first" lists: the cursor is the (created_at, id) of the last
 * item of the previous page — opaque to callers, stable while new items arrive, and served by
 * the (owner, created_at) indexes. Nothing secret is in a cursor.
 */
import { badRequest } from "../domain/errors.js";

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

export interface PageInput {
  limit?: number;
  cursor?: string;
}

export function encodeCursor(pos: CursorPosition): string {
  return Buffer.from(`${pos.createdAt.getTime()}.${pos.id}`, "utf8").toString("base64url");
}

/** The position in `cursor`, which must name an id with `prefix` (rj, clip …); else 400. */
export function decodeCursor(cursor: string, prefix: string): CursorPosition {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = new RegExp(`^(\\d{1,15})\\.(${prefix}_[0-9A-Za-z]{1,64})$`).exec(text);
  if (!match) {
    throw badRequest("cursor: is not a cursor from this list; pass next_cursor as it was given.");
  }
  return { createdAt: new Date(Number(match[1])), id: match[2] as string };
}

/**
 * Once per `npm test`: makes sure the migrated PGlite template exists (npm install builds it;
 * a changed migration needs a new one), so every in-memory test database is a ~0.6 s copy
 * instead of a ~2 s initdb plus migrations.
 */
import { ensureTemplate } from "../src/db/pglite-template.js";

export default async function setup(): Promise<void> {
  if (!process.env.DATABASE_URL) await ensureTemplate();
}

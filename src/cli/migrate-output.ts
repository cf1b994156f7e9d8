/** How `kinora admin migrate` prints its report and its refusals, as text or as one JSON document. */
import type { MigrationReport } from "../services/migrate/report.js";

/** Exit codes of `kinora admin migrate` (also in docs/migrating.md). */
export const MIGRATE_EXIT = {
  ok: 0,
  /** Bad usage or configuration, the server still running, a database unreachable. */
  error: 1,
  /** Refused before writing: the target is not empty, or the schemas differ. */
  refused: 2,
  /** A check failed (source ledger drift, or the copy did not verify): nothing was committed. */
  mismatch: 3,
} as const;

/** The URL with its password replaced, for printing. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

function formatBytes(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

function cents(n: number): string {
  const sign = n < 0 ? "-" : "";
  const abs = Math.abs(n);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** The human-readable report: what was (or would be) copied, checked and left where. */
export function formatReport(r: MigrationReport, dataDir: string): string {
  const lines: string[] = [];
  const verb = r.dry_run ? "Dry run (nothing written):" : r.ok ? "Migrated" : "NOT migrated";
  lines.push(`${verb} ${dataDir} → ${r.target} in ${r.seconds.toFixed(1)} s`);
  const width = Math.max(...r.tables.map((t) => t.name.length));
  for (const t of r.tables) {
    const target = t.target_rows === null ? "" : ` → ${t.target_rows}`;
    const content = t.content_match === false ? "  (content differs)" : "";
    lines.push(`  ${t.name.padEnd(width)}  ${t.source_rows}${target}${content}`);
  }
  const equal = !r.dry_run && r.ok ? ": every count and row digest equal on both sides" : "";
  lines.push(`  ${r.tables.length} tables, ${r.rows} rows${equal}`);
  const l = r.ledger;
  lines.push(
    `  ledger: ${l.wallets} wallets, ${l.entries} entries, Σ entries ${cents(l.entries_cents)}, Σ balances ${cents(l.balances_cents)}`,
  );
  const target = r.reconcile.target;
  lines.push(
    `  reconcile: source ${r.reconcile.source.ok ? "clean" : "DRIFT"}` +
      (target ? `, target ${target.ok ? "clean" : "DRIFT"}` : ""),
  );
  for (const s of r.sequences) lines.push(`  sequence ${s.sequence} set to ${s.value}`);
  lines.push(filesLine(r));
  if (r.files.skipped.length > 0) {
    lines.push(`  left behind (not objects): ${r.files.skipped.join(", ")}`);
  }
  for (const p of r.problems) lines.push(`  PROBLEM ${p.check} ${p.subject}: ${p.detail}`);
  if (!r.ok) {
    lines.push("No rows were committed to the target (it is migrated but empty): run again.");
  }
  return `${lines.join("\n")}\n`;
}

function filesLine(r: MigrationReport): string {
  const f = r.files;
  const what = `${f.objects} objects (${formatBytes(f.bytes)})`;
  if (f.mode === "in_place") {
    return `  files: ${what} left in ${f.dir}: keep STORAGE=local (this STORAGE_DIR) on this machine, or migrate with --files-to s3`;
  }
  const untyped = f.untyped > 0 ? `, ${f.untyped} without a stored type sent as octet-stream` : "";
  const did = r.dry_run ? "would be uploaded to" : "uploaded to";
  return `  files: ${what} ${did} s3://${f.bucket}, each size and type checked${untyped}`;
}

/** What to do once the copy committed (no secret values are printed). */
export function nextSteps(dataDir: string, filesToS3: boolean): string {
  return [
    "Next (docs/migrating.md): on every API node set",
    `  DATABASE_URL=<the --to URL>${filesToS3 ? ", STORAGE=s3 and the same S3_* settings" : ""}`,
    `  ADMIN_TOKEN=<contents of ${dataDir}/admin-token>  SIGNING_SECRET=<contents of ${dataDir}/signing-secret>`,
    "then start the nodes and check with `kinora admin reconcile`.",
    "",
  ].join("\n");
}

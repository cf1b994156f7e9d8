/**
 * What a migration (or a dry run) reports, and the refusals that stop one before anything is
 * written. The CLI prints the report as text or JSON and maps each outcome to an exit code.
 */

/** Why a migration stopped on purpose; the CLI turns each into its exit code. */
type RefusalCode =
  /** A kinora table of the target already has rows. */
  | "target_not_empty"
  /** The source's applied migrations are not exactly this build's. */
  | "source_schema"
  /** The source's ledger does not reconcile: copying it would copy the drift. */
  | "source_drift";

export class MigrationRefusedError extends Error {
  override readonly name = "MigrationRefusedError";
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** One thing verification found wrong; any problem rolls the target back. */
export interface Problem {
  check: "rows" | "content" | "ledger" | "reconcile" | "sequence" | "file" | "schema";
  /** The table, wallet, object key or sequence concerned. */
  subject: string;
  detail: string;
}

/** One table's copy: rows in the source and the target, and whether they match. */
export interface TableReport {
  name: string;
  source_rows: number;
  /** Rows in the target after the copy; null in a dry run. */
  target_rows: number | null;
  /** Whether a digest of every row's content matched; null in a dry run. */
  content_match: boolean | null;
}

/** The ledger's totals before and after the copy. */
export interface LedgerReport {
  wallets: number;
  entries: number;
  /** Σ balance_cents over wallets, and Σ amount_cents over entries: equal when reconciled. */
  balances_cents: number;
  entries_cents: number;
}

/** The reconciliation of the copied ledger. */
export interface ReconcileSummary {
  ok: boolean;
  wallets_checked: number;
  keys_checked: number;
  entries_checked: number;
  drift: number;
}

/** The file copy: where files went and how many. */
export interface FilesReport {
  /** in_place: the local files stay in the local store; s3: uploaded to the bucket. */
  mode: "in_place" | "s3";
  dir: string;
  bucket: string | null;
  objects: number;
  bytes: number;
  /** Temp (.part) files and names that are not storage keys, left behind. */
  skipped: string[];
  /** Objects with no content-type sidecar, sent as application/octet-stream. */
  untyped: number;
}

/** What `kinora admin migrate` did, table by table, and whether it verified. */
export interface MigrationReport {
  ok: boolean;
  dry_run: boolean;
  /** The target URL with any password hidden. */
  target: string;
  tables: TableReport[];
  rows: number;
  ledger: LedgerReport;
  reconcile: { source: ReconcileSummary; target: ReconcileSummary | null };
  sequences: { sequence: string; value: string }[];
  files: FilesReport;
  seconds: number;
  problems: Problem[];
}

/**
 * The echo kind as the job engine sees it: a worker reads the uploaded text through the work
 * item's input URL and reports it back (shouted or not); the result lands in a column. Refunds
 * go through the ledger; the text stays until retention.
 */
import { sql } from "kysely";
import { z } from "zod";
import type { JobDefinition } from "../../../../src/jobs/definition.js";
import { refundToLedger } from "../../../../src/services/ledger.js";
import { type JobFileLayout, jobFileKey } from "../../../../src/storage/keys.js";
import { ECHO_FINAL, ECHO_MOVES, ECHO_PRICE_CENTS, ECHO_STATUSES } from "../rules/transitions.js";
import type { EchoRow } from "./table.js";

/** What an echo worker gets (the executor receives it parsed). */
export const EchoParams = z.object({ shout: z.boolean() });
/** EchoParams, parsed. */
export type EchoParams = z.infer<typeof EchoParams>;

/** Echo's one file: `echo/echo_…/input`, the text to echo. */
const ECHO_FILES: JobFileLayout = {
  area: "echo",
  idPattern: /^echo_[A-Za-z0-9_-]{1,100}$/,
  files: ["input"],
};

/** Where the text of echo `id` is uploaded. */
export const echoInputKey = (id: string) => jobFileKey(ECHO_FILES, id, "input");

/** The whole kind, as the engine sees it. */
export const echoJobs: JobDefinition<EchoRow, EchoParams> = {
  kind: "echo",
  table: "echo_jobs",
  noun: "echo job",
  cheapestCents: ECHO_PRICE_CENTS,
  statuses: ECHO_STATUSES,
  final: ECHO_FINAL,
  moves: ECHO_MOVES,
  waiting: "queued",
  running: "running",
  params: EchoParams,
  async workItem(row, deps) {
    return {
      inputUrl: await deps.storage.presignDownload(row.input_key, { expiresInSec: 3600 }),
      // Echo stores no output file: the result travels in the report.
      outputUrl: "",
      outputHeaders: {},
      params: { shout: row.shout },
    };
  },
  fileLayout: ECHO_FILES,
  // The caller's link takes one upload, while the job waits for its text.
  uploads: { input: { statuses: ["awaiting_upload"], once: true } },
  refund: refundToLedger,
  // Every echo is one unit of work of one class, a tenth of a second until measured.
  estimate: {
    classSql: () => sql`'echo'`,
    amountSql: () => sql`1`,
    doneAmountSql: () => sql`1`,
    succeededSql: (t) => sql`${sql.ref(`${t}.result`)} IS NOT NULL`,
    work: () => ({ workClass: "echo", amount: 1 }),
    defaults: { echo: 0.1 },
  },
  async finish(_row, result) {
    const echoed = result.meta.echo;
    if (typeof echoed !== "string") return { retry: "The worker sent no echo." };
    return { set: { result: echoed } };
  },
  end: (failure) => ({ move: failure.kind === "refused" ? "refuse" : "fail" }),
  exhausted: (attempts, last) => `${last} (after ${attempts} attempts)`,
  workerLost: (attempts) => `The echo worker stopped responding on all ${attempts} attempts.`,
  files: (row) => [row.input_key],
  // The input stays until retention, so the sweeper has a file to delete for every end.
  filesAfterEnd: () => [],
  retention(deps) {
    const retentionMs = deps.retentionHours * 3600_000;
    return [
      {
        statuses: ["awaiting_upload"],
        due: { column: "upload_expires_at", before: (now) => now },
        move: "uploadExpired",
        set: (_row, now) => ({ error: "The text never arrived.", finished_at: now }),
      },
      {
        statuses: ["done"],
        due: { column: "expires_at", before: (now) => now },
        move: "retentionExpired",
        set: () => ({ error: "Deleted after retention." }),
      },
      {
        statuses: ["failed", "refused", "cancelled", "expired"],
        due: { column: "finished_at", before: (now) => new Date(now.getTime() - retentionMs) },
      },
    ];
  },
};

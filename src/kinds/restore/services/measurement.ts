/**
 * A restore's measured length, as the worker running it notes it before restoring: the job
 * records it, and when it prices lower than the charge the difference goes back at once — to
 * the balance and the agent key's allowance (one `adjustment` ledger entry tied to the job), or
 * to the card through the card-refund outbox. Exactly once: the job row's conditional update
 * (still processing, same lease, not yet measured) has one winner however often workers retry
 * or race, and it holds the row lock, so a failure refund (which moves the same row first)
 * either sees the part given back and returns only the rest, or wins and leaves nothing to part.
 */
import type { Selectable } from "kysely";
import { z } from "zod";
import type { JobEngineDeps } from "../../../jobs/definition.js";
import { inTx } from "../../../jobs/move.js";
import { notifyJobEvent } from "../../../jobs/watch.js";
import { refundJobPart } from "../../../services/ledger.js";
import { measuredPrice, measuredRefundReason } from "../rules/measured-price.js";
import type { RestoreJobsTable } from "./tables.js";

type Row = Selectable<RestoreJobsTable>;

/** What a restore worker notes once it has the file and its length (ExecuteContext.note). */
export const RestoreNote = z.object({
  measuredDurationSec: z.number().positive().finite(),
  /** The file's size and type as the worker has it (a video_url job learns them so). */
  inputBytes: z.number().int().positive().optional(),
  contentType: z.string().min(1).max(255).optional(),
});
/** RestoreNote, parsed. */
export type RestoreNote = z.infer<typeof RestoreNote>;

type Deps = Pick<JobEngineDeps, "db" | "clock" | "log" | "events">;

/**
 * Records the measured length (and, for a video_url job, the fetched file's size and type) and
 * gives back what the measured length does not cost. The moved row, or undefined when the job
 * was measured already, is no longer this lease's, or the note is malformed.
 */
export async function applyMeasurement(
  deps: Deps,
  row: Row,
  note: unknown,
): Promise<Row | undefined> {
  const parsed = RestoreNote.safeParse(note);
  if (!parsed.success || row.lease_owner === null) {
    deps.log.warn("restore note ignored", { job_id: row.id, lease: row.lease_owner });
    return undefined;
  }
  const { measuredDurationSec: sec, inputBytes, contentType } = parsed.data;
  const price = measuredPrice({
    quality: row.quality,
    width: row.width ?? undefined,
    height: row.height ?? undefined,
    chargedCents: Number(row.declared_amount_cents),
    measuredSec: sec,
  });
  const fetched = row.source_url !== null;
  const lease = row.lease_owner;
  return inTx(deps.db, async (tx) => {
    const moved = await tx
      .updateTable("restore_jobs")
      .set({
        measured_duration_sec: sec,
        amount_cents: price.amountCents,
        updated_at: deps.clock(),
        ...(fetched && inputBytes !== undefined ? { size_bytes: inputBytes } : {}),
        ...(fetched && contentType !== undefined ? { content_type: contentType } : {}),
      })
      .where("id", "=", row.id)
      .where("status", "=", "processing")
      .where("lease_owner", "=", lease)
      .where("measured_duration_sec", "is", null)
      .returningAll()
      .executeTakeFirst();
    if (!moved) return undefined;
    await notifyJobEvent(tx, row.id);
    if (price.backCents === 0) return moved;
    const reason = measuredRefundReason(row.id, sec, row.duration_sec, price);
    if (moved.paid_from_balance) {
      await refundJobPart(tx, { jobId: row.id, amountCents: price.backCents, reason }, deps.events);
    } else if (moved.payment_ref !== null) {
      await tx
        .insertInto("restore_card_refunds")
        .values({ job_id: row.id, kind: "measured", amount_cents: price.backCents, reason })
        .onConflict((oc) => oc.columns(["job_id", "kind"]).doNothing())
        .execute();
    }
    deps.log.info("restore priced by its measured length", {
      job_id: row.id,
      measured_sec: sec,
      amount_cents: price.amountCents,
      back_cents: price.backCents,
    });
    return moved;
  });
}

/**
 * The before/after still of a restore (and, when the server asks for them, the two frames at
 * the result's size), made on the worker and stored by the tickets the work item carries. One
 * piece for every restore executor: a one-piece restore's and a segmented restore's join.
 */
import path from "node:path";
import { makeBeforeAfterStill } from "../engines/restore/still.js";
import type { ExecuteContext, WorkItem } from "../jobs/work.js";
import { type FetchLike, uploadOutput } from "./transfer.js";

/** A ticket to store one file at: the headers the output URL wants with it. */
interface Ticket {
  headers: Record<string, string>;
}

/** The tickets for the still and the optional full-size frames. */
export interface StillTickets {
  still: Ticket;
  frames?: { before: Ticket; after: Ticket } | undefined;
}

/** The files the still is made from, and the result's length and size (0: unknown). */
export interface StillSources {
  inputPath: string;
  outputPath: string;
  durationSec: number;
  width: number;
  height: number;
}

/**
 * Makes the still (and the frames, when asked and the result's size is known) and stores each;
 * false when any step failed. A courtesy — a restore without one is still done — so a failure
 * only leaves it out, but an abort still stops the job (its reason is thrown).
 */
export async function storeBeforeAfter(
  fetchImpl: FetchLike,
  item: Pick<WorkItem, "outputUrl">,
  tickets: StillTickets,
  ctx: Pick<ExecuteContext, "workDir" | "signal">,
  sources: StillSources,
): Promise<boolean> {
  const stillPath = path.join(ctx.workDir, "still.jpg");
  // Full-size frames need the result's size (engines report it; 0 when they could not tell).
  const sized = sources.width > 0 && sources.height > 0;
  const frames =
    tickets.frames && sized
      ? { before: path.join(ctx.workDir, "before.jpg"), after: path.join(ctx.workDir, "after.jpg") }
      : undefined;
  const store = (ticket: Ticket, file: string) =>
    uploadOutput(
      fetchImpl,
      { outputUrl: item.outputUrl, outputHeaders: ticket.headers },
      file,
      "image/jpeg",
      ctx.signal,
    );
  try {
    await makeBeforeAfterStill({ ...sources, stillPath, frames, signal: ctx.signal });
    await store(tickets.still, stillPath);
    if (tickets.frames && frames) {
      await store(tickets.frames.before, frames.before);
      await store(tickets.frames.after, frames.after);
    }
    return true;
  } catch {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return false;
  }
}

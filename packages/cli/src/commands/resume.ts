/**
 * What a command says about a paid job when it stops early: before the file arrived the job is
 * cancelled and the price refunded; after, the job carries on on the server without us. Either
 * way the message says where the money stands, whatever stopped the command.
 */
import type { ClientContext } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { CliFailure, Interrupted } from "../failures.js";
import { dollars } from "../format.js";
import { type AnyJob, type JobKind, paidByCheckout } from "../job-kinds.js";
import { cancelAfterStop } from "../job-steps.js";

/** An error's own words, without a trailing full stop. */
const words = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).trim().replace(/\.$/, "");

/**
 * The failure to stop with when the upload did not go through — Ctrl-C, a refused or broken
 * upload, or a fault in this client: the job is cancelled so its price goes back to the
 * balance, and the message ends with what became of it ("…; $4.99 was refunded to your
 * balance").
 */
export async function refundAfterStop<J extends AnyJob>(
  ctx: ClientContext,
  kind: JobKind<J>,
  job: J,
  err: unknown,
): Promise<CliFailure> {
  const outcome = await cancelAfterStop(ctx, kind, job);
  ctx.charge.note = undefined; // the message below says it
  if (err instanceof Interrupted) return new Interrupted(`Upload stopped. ${outcome.message}`);
  if (err instanceof CliFailure) {
    return new CliFailure(`${err.message} ${outcome.message}`, err.exitCode, err.fields);
  }
  return new CliFailure(`unexpected error: ${words(err)}. ${outcome.message}`, EXIT.failed);
}

/**
 * The failure to stop with when an upload in parts did not go through: the job stays, waiting
 * for the rest of its parts, and the message says how to send them or get the money back.
 */
export function partsStopped(
  ctx: ClientContext,
  job: AnyJob & { amount_cents: number },
  file: string,
  err: unknown,
): unknown {
  const again = `run \`kinora restore ${shellQuote(file)}\` again to send the missing parts (the same job; nothing more is charged)`;
  const money = paidByCheckout(job)
    ? `Nothing was charged for ${job.id}; ${again}.`
    : `${job.id} keeps its ${dollars(job.amount_cents)} until it starts or expires: ${again}, or \`kinora cancel ${job.id}\` for a refund.`;
  ctx.charge.note = undefined;
  if (err instanceof Interrupted) return new Interrupted(`Upload stopped. ${money}`);
  if (err instanceof CliFailure)
    return new CliFailure(`${err.message} ${money}`, err.exitCode, err.fields);
  return new CliFailure(`unexpected error: ${words(err)}. ${money}`, EXIT.failed);
}

/** A path as a shell reads it back: quoted when it has anything but plain characters. */
function shellQuote(file: string): string {
  return /^[\w@%+=:,./-]+$/.test(file) ? file : `'${file.replace(/'/g, "'\\''")}'`;
}

/** The job the message is about: its id and what was paid for it. */
interface PaidJob {
  id: string;
  amountCents: number;
  /** Paid by card through a checkout link rather than from the balance. */
  byCard: boolean;
}

/** Where the money of a started job stands while it runs without us. */
export function runningMoneyNote(job: PaidJob): string {
  return job.byCard
    ? `${job.id} runs once its card payment is made (nothing is taken before); if it fails it is refunded to the card.`
    : `${job.id} was paid (${dollars(job.amountCents)}) and keeps running on the server; if it fails it is refunded in full.`;
}

/**
 * Adds "how to pick it up again" to a failure after the upload: the job is paid and finishes (or
 * stays downloadable) without us, so Ctrl-C, a lost connection or a fault in this client must
 * not read as "lost" — and the message says where the money stands (so the command's own note
 * is not added again). Other failures are left as they are, with the note.
 */
export function resumeHint(
  ctx: ClientContext,
  err: unknown,
  job: PaidJob,
  stage: "follow" | "download",
): unknown {
  const { id } = job;
  const hint =
    stage === "follow"
      ? `${runningMoneyNote(job)} Follow it with \`kinora get ${id} --follow\`, save it with \`kinora get ${id} --download PATH\`, or see \`kinora jobs\`.`
      : `The result stays on the server for now (typically 48 hours): save it with \`kinora get ${id} --download PATH\`.`;
  const stopped = stage === "follow" ? "Stopped following." : "Download stopped.";
  const hinted = (failure: CliFailure) => {
    ctx.charge.note = undefined;
    return failure;
  };
  if (err instanceof Interrupted) return hinted(new Interrupted(`${stopped} ${hint}`));
  if (err instanceof CliFailure && err.fields.network) {
    return hinted(new CliFailure(`${err.message} ${hint}`, err.exitCode, err.fields));
  }
  if (!(err instanceof CliFailure)) {
    return hinted(new CliFailure(`unexpected error: ${words(err)}. ${hint}`, EXIT.failed));
  }
  return err;
}

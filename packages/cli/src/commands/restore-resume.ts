/**
 * Finding the job an earlier `kinora restore FILE` left mid-upload (the resume record,
 * ../resume-file.ts): the same file on the same server whose job still takes its file is picked
 * up — nothing is created or charged again — and anything else is forgotten.
 */
import path from "node:path";
import type { Output } from "@kinora/client";
import type { ClientContext } from "../command.js";
import { ApiFailure } from "../failures.js";
import { formatBytes } from "../format.js";
import { findResume, forgetResume } from "../resume-file.js";

/** The API client for a restore: a checkout job carries no key, from create to its reads. */
export const jobApi = (ctx: ClientContext, p: { payWith: "balance" | "checkout" }) =>
  p.payWith === "checkout" ? ctx.api.withoutKey() : ctx.api;

type Job = Output<"getRestore">["job"];

/** The job to resume, shaped as a create's answer, or undefined to create one. */
export async function resumableJob(ctx: ClientContext, p: { file: string }, record: string) {
  const entry = await findResume(record, ctx.api.server, p.file);
  if (!entry) return undefined;
  const api = jobApi(ctx, { payWith: entry.byCard ? "checkout" : "balance" });
  let job: Job;
  try {
    job = (await api.call("getRestore", { id: entry.jobId })).job;
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status !== 404) throw err;
    await forgetResume(record, entry.jobId);
    return undefined;
  }
  const waiting = job.status === "awaiting_upload" || job.status === "pending_payment";
  if (!waiting || !job.upload || job.upload.status === "aborted") {
    await forgetResume(record, entry.jobId);
    return undefined;
  }
  const { received_parts, part_count, received_bytes } = job.upload;
  ctx.out.note(
    `Resuming ${job.id} for ${path.basename(p.file)}: ${received_parts} of ${part_count} parts (${formatBytes(received_bytes)}) arrived before; nothing more is charged.`,
  );
  ctx.charge.note = job.paid_from_balance
    ? `${job.id} was charged ${job.display_price} and has not started: \`kinora cancel ${job.id}\` refunds it.`
    : `Nothing was charged for ${job.id}: it is paid by card, through its checkout link.`;
  return {
    job,
    display_price: job.display_price,
    paid_from_balance: job.paid_from_balance,
    upload: {
      method: "parts" as const,
      size_bytes: job.upload.size_bytes,
      part_size_bytes: 0,
      part_count,
      // Not read: the uploader takes the algorithm from the upload's state it reads first.
      checksum: "crc32" as const,
      expires_at: job.expires_at,
      steps: "",
    },
  };
}

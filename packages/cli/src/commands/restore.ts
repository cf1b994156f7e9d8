/**
 * `kinora restore FILE`: probe → quote → confirm → create → upload → start (or checkout) →
 * follow → download. A file the server takes in parts (above its single-upload size) goes in
 * parallel parts under one bar; stopped then (Ctrl-C, a crash), the job stays and the same
 * command run again finds it and sends only the missing parts. A file sent in one PUT: Ctrl-C
 * before the upload is through cancels the job (refunded). After the upload the job carries on
 * on the server and the message says how to pick it up again.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { FADE_HINTS, type Input, type Output, type RestoreJob } from "@kinora/client";
import { ensureCanPay } from "../affordability.js";
import {
  type ClientCommand,
  type ClientContext,
  COMMON_HELP,
  flagArg,
  stringArg,
} from "../command.js";
import { freePath } from "../download.js";
import { EXIT } from "../exit-codes.js";
import { ApiFailure, CliFailure, UsageError } from "../failures.js";
import { dollars, formatBytes, formatDuration } from "../format.js";
import { failureOf, kindNamed, resultFileName } from "../job-kinds.js";
import { downloadStep, followStep, uploadStep } from "../job-steps.js";
import { openUrl } from "../open-url.js";
import { DEFAULT_PARALLEL, partsUploadStep } from "../parts-step.js";
import { probeVideo, type VideoFacts } from "../probe.js";
import { confirmSpend } from "../prompts.js";
import { forgetResume, resumeFilePath, saveResume } from "../resume-file.js";
import { startPaidJob } from "../timing.js";
import {
  parseQuality,
  QUALITY_NAMES,
  qualityLinesOffline,
  qualityPriceLines,
} from "./restore-qualities.js";
import { jobApi, resumableJob } from "./restore-resume.js";
import { partsStopped, refundAfterStop, resumeHint, runningMoneyNote } from "./resume.js";

/** Restores, as `kinora get` and `kinora jobs` handle them too. */
const RESTORE = kindNamed("restore");

type Created = Pick<
  Output<"createRestore">,
  "job" | "display_price" | "paid_from_balance" | "upload_url" | "upload_headers" | "upload"
>;
type RestoreQuality = NonNullable<Input<"createRestore">["quality"]>;
type RestoreFade = NonNullable<Input<"createRestore">["fade"]>;

/**
 * `--fade faded|not-faded|auto` (underscores work too): what the person says of the tape's
 * levels. Refused here with Standard, as the server would refuse it, before any price is asked.
 */
function parseFade(typed: string | undefined, quality: RestoreQuality): RestoreFade | undefined {
  if (typed === undefined) return undefined;
  const fade = FADE_HINTS.find((h) => h === typed.trim().toLowerCase().replace(/-/g, "_"));
  if (!fade) {
    throw new UsageError(`--fade must be faded, not-faded or auto; "${typed}" is none of them.`);
  }
  if (fade !== "auto" && quality === "faithful") {
    throw new UsageError(
      "--fade goes with --quality enhanced or studio-max: Standard never changes levels.",
    );
  }
  return fade;
}

interface Plan {
  file: string;
  sizeBytes: number;
  facts: VideoFacts;
  quality: RestoreQuality;
  fade?: RestoreFade;
  payWith: "balance" | "checkout";
  email?: string;
}

async function plan(ctx: ClientContext): Promise<Plan> {
  const { args } = ctx;
  const [file, extra] = args.positionals;
  if (!file || extra)
    throw new UsageError(
      `Usage: kinora restore FILE [--quality ${QUALITY_NAMES.replace(/,? or |, /g, "|")}] [--yes]`,
    );
  const quality = parseQuality(stringArg(args, "quality"));
  const fade = parseFade(stringArg(args, "fade"), quality);
  const payWith = stringArg(args, "pay-with") ?? (ctx.api.key ? "balance" : undefined);
  const email = stringArg(args, "email");
  if (payWith === undefined) {
    throw new UsageError(
      "No key: run kinora login (or set KINORA_KEY), or pay for this job alone with --pay-with checkout --email you@example.com.",
    );
  }
  if (payWith !== "balance" && payWith !== "checkout")
    throw new UsageError("--pay-with must be balance or checkout.");
  if (payWith === "balance") ctx.api.requireKey();
  // A job paid by card is created without any key (none is needed, none is sent): the receipt
  // goes to the address given.
  if (payWith === "checkout" && !email)
    throw new UsageError("--email is required with --pay-with checkout: the receipt goes there.");
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new UsageError(`${file} is not a file.`);
  const facts = await probeVideo(file, info.size);
  return {
    file,
    sizeBytes: info.size,
    facts,
    quality,
    payWith,
    ...(fade ? { fade } : {}),
    ...(email ? { email } : {}),
  };
}

function requestFields(p: Plan) {
  return {
    duration_sec: p.facts.durationSec,
    quality: p.quality,
    ...(p.facts.width ? { width: p.facts.width, height: p.facts.height } : {}),
  };
}

async function confirmPrice(ctx: ClientContext, p: Plan): Promise<void> {
  const quote = await ctx.api.call("quoteRestore", requestFields(p));
  const picture = p.facts.width ? `, ${p.facts.width}×${p.facts.height}` : "";
  const payer = p.payWith === "balance" ? "from your balance" : "by card (checkout link)";
  // A price the key cannot pay is never put to the person: say what is missing instead.
  if (p.payWith === "balance") {
    await ensureCanPay(ctx, quote.amount_cents, `Restoring ${path.basename(p.file)}`);
  }
  const question = `Restore ${path.basename(p.file)} (${formatDuration(p.facts.durationSec)}${picture}, ${formatBytes(p.sizeBytes)}) at ${quote.quality_label} for ${quote.display}, paid ${payer}?`;
  if (!(await confirmSpend(ctx.out, question, flagArg(ctx.args, "yes")))) {
    throw new CliFailure("Not restored; nothing was charged.", EXIT.failed);
  }
}

/** What to say when a create stopped before its answer arrived. */
const UNSEEN_CREATE =
  "If the job was made before it stopped, `kinora jobs` lists it; `kinora cancel ID` refunds it until it starts.";

async function create(ctx: ClientContext, p: Plan): Promise<Created> {
  await confirmPrice(ctx, p);
  // Stopped while the answer is on its way, the charge may have happened unseen.
  if (p.payWith === "balance") ctx.charge.note = UNSEEN_CREATE;
  const created = await jobApi(ctx, p)
    .call("createRestore", {
      ...requestFields(p),
      filename: path.basename(p.file),
      content_type: p.facts.contentType,
      size: p.sizeBytes,
      ...(p.fade ? { fade: p.fade } : {}),
      ...(p.email ? { email: p.email } : {}),
      ...(p.payWith === "checkout" ? { pay_with: "checkout" as const } : {}),
    })
    .catch((err: unknown) => {
      // An answer from the server means nothing was made; only a lost answer leaves the note.
      if (err instanceof ApiFailure) ctx.charge.note = undefined;
      throw err;
    });
  const { id } = created.job;
  ctx.charge.note = created.paid_from_balance
    ? `${id} was charged ${created.display_price} and has not started: \`kinora cancel ${id}\` refunds it.`
    : `Nothing was charged for ${id}: it is paid by card, through its checkout link.`;
  ctx.out.note(
    created.paid_from_balance
      ? `Created ${id}; ${created.display_price} was taken from your balance.`
      : `Created ${id} (${created.display_price}, paid by checkout after the upload).`,
  );
  return created;
}

/**
 * Uploads. In one PUT: on Ctrl-C or any failure the job is cancelled so the price comes back.
 * In parts: the job stays, and running the command again sends only the missing parts.
 */
async function upload(ctx: ClientContext, p: Plan, created: Created): Promise<number> {
  if (created.upload) return uploadParts(ctx, p, created, created.upload);
  try {
    // A create with a file (not a video_url) always answers where to put it.
    if (!created.upload_url) {
      throw new CliFailure(`${created.job.id} came back without an upload link.`, EXIT.server);
    }
    return await uploadStep(ctx, {
      url: created.upload_url,
      headers: created.upload_headers ?? { "Content-Type": p.facts.contentType },
      file: p.file,
      sizeBytes: p.sizeBytes,
    });
  } catch (err) {
    throw await refundAfterStop(ctx, RESTORE, created.job, err);
  }
}

async function uploadParts(
  ctx: ClientContext,
  p: Plan,
  created: Created,
  plan: NonNullable<Created["upload"]>,
): Promise<number> {
  const { id } = created.job;
  if (created.job.upload?.status === "completed") return 0;
  const parallel = Number(stringArg(ctx.args, "parallel") ?? DEFAULT_PARALLEL);
  try {
    const done = await partsUploadStep(ctx, jobApi(ctx, p), {
      jobId: id,
      file: p.file,
      sizeBytes: p.sizeBytes,
      partCount: plan.part_count,
      parallel,
    });
    return done.puts;
  } catch (err) {
    throw await partsStopped(ctx, created.job, p.file, err);
  }
}

/** Balance jobs start now; checkout jobs start once the person pays the link. */
async function start(ctx: ClientContext, p: Plan, created: Created): Promise<void> {
  const id = created.job.id;
  if (created.paid_from_balance) {
    // Starting a started job returns it unchanged, so a retry after a lost answer is safe.
    await startPaidJob(ctx.api, (api) => api.call("startRestore", { id }));
    return;
  }
  const { checkout_url } = await jobApi(ctx, p).call("createRestoreCheckout", { id });
  ctx.out.warn(`Pay ${created.display_price} here to start the restore: ${checkout_url}`);
  if (flagArg(ctx.args, "open") && !(await openUrl(checkout_url))) {
    ctx.out.warn("Could not open a browser; open the link yourself.");
  }
}

async function restore(ctx: ClientContext): Promise<number> {
  const p = await plan(ctx);
  const parallel = stringArg(ctx.args, "parallel");
  if (parallel !== undefined && !/^([1-9]|1[0-6])$/.test(parallel)) {
    throw new UsageError("--parallel must be a whole number of parts from 1 to 16.");
  }
  const record = resumeFilePath(ctx.env.configHome);
  // A job this file's upload in parts belongs to (an earlier run stopped): no second charge.
  const resumed = await resumableJob(ctx, p, record);
  const created = resumed ?? (await create(ctx, p));
  if (created.upload) {
    await saveResume(record, {
      server: ctx.api.server,
      file: p.file,
      jobId: created.job.id,
      byCard: !created.paid_from_balance,
    });
  }
  const attempts = await upload(ctx, p, created);
  const id = created.job.id;
  const paid = { id, amountCents: created.job.amount_cents, byCard: !created.paid_from_balance };
  // Until it starts, the job can still be cancelled and refunded: the note from create holds.
  await start(ctx, p, created);
  await forgetResume(record, id);
  ctx.charge.note = runningMoneyNote(paid);
  let job: RestoreJob;
  try {
    job = await followStep(ctx, RESTORE, id);
  } catch (err) {
    throw resumeHint(ctx, err, paid, "follow");
  }
  const failure = failureOf(RESTORE, job);
  if (failure) {
    ctx.charge.note = undefined; // a failed or refused job's message says what became of it
    throw failure;
  }
  if (!job.download_url)
    throw new CliFailure(`${id} is done but has no download link.`, EXIT.server);
  ctx.charge.note = `${id} is done (${dollars(job.amount_cents)} charged): save it with \`kinora get ${id} --download PATH\`.`;
  const given = stringArg(ctx.args, "out");
  const dest = given
    ? path.resolve(given)
    : freePath(path.dirname(path.resolve(p.file)), resultFileName(RESTORE, job));
  let sizeBytes: number;
  try {
    sizeBytes = await downloadStep(ctx, job.download_url, dest);
  } catch (err) {
    throw resumeHint(ctx, err, paid, "download");
  }
  ctx.charge.note = undefined;
  ctx.out.result(
    {
      job,
      output: dest,
      size_bytes: sizeBytes,
      upload_attempts: attempts,
      // The job an earlier run left mid-upload, picked up: nothing was charged again.
      resumed: resumed !== undefined,
    },
    `Restored video saved to ${dest} (${formatBytes(sizeBytes)}); ${dollars(job.amount_cents)} was charged.`,
  );
  return 0;
}

/** The help text around the qualities section (the server's prices, or where to see them). */
function restoreHelp(qualities: string[]): string {
  return `Usage: kinora restore FILE [--quality ${QUALITY_NAMES.replace(/,? or |, /g, "|")}] [--out PATH] [--yes]
       kinora restore FILE --pay-with checkout --email you@example.com [--open]

Reads the video's length and size (with ffprobe, or from the file's own header),
shows the price and asks before spending (unless --yes), then uploads it (progress
bar; a broken upload is retried), starts the restore, follows it and downloads the
result — by default next to the input as NAME-restored.mp4. A file that is not a
video (a photo, an empty or text file, sound alone) is refused before any price.

${qualities.join("\n")}

A file above the server's single-upload size (256 MiB by default) goes in parts,
several at once (--parallel), under one progress bar. Stopped then (Ctrl-C, a crash,
a lost connection), the job waits: run the same command on the same file again and
it picks up the same job (nothing more is charged) and sends only the missing parts;
\`kinora cancel ID\` refunds it instead. A smaller file goes in one upload, and Ctrl-C
during it cancels the job and refunds it. After the upload the job keeps running on
the server: pick it up with kinora get ID --download PATH.

Options:
  -q, --quality Q      ${QUALITY_NAMES} (default enhanced); the API names
                       faithful and enhanced_max, and any case, work too
  --fade F             has the tape faded (grey blacks, dim whites)? faded: correct
                       its levels even where the analysis finds no fade (a light
                       fade looks like a clean, low-contrast scene); not-faded:
                       keep them (fog, night, a graded look); auto (default): the
                       analysis decides. Enhanced and Studio Max only
  -o, --out PATH       where to save the restored MP4
  -y, --yes            agree to the price without asking (needed without a terminal)
  --pay-with checkout  pay this job alone by card instead of from the balance; no
                       key is sent for it
  --email ADDRESS      receipt address; required with --pay-with checkout
  --open               open the checkout link in the browser
  --parallel N         parts sent at once for a file sent in parts (1–16, default 4)

Examples:
  kinora restore wedding-1994.mp4
  kinora restore tape.avi --quality studio-max --out ~/Videos/tape.mp4
  kinora restore video8.avi --fade faded
  kinora restore clip.mov --yes --json | jq -r .output

Exit codes for the job itself: 4 if it failed, 3 if it was refused for a wrong
length (both refunded), 1 if it was cancelled or expired.

${COMMON_HELP}`;
}

/** `kinora restore FILE`: probe, quote, confirm, upload, follow, download. */
export const restoreCommand: ClientCommand = {
  name: "restore",
  summary: "restore a video file: quote, confirm, upload, follow, download",
  options: {
    quality: { type: "string", short: "q" },
    fade: { type: "string" },
    out: { type: "string", short: "o" },
    yes: { type: "boolean", short: "y" },
    "pay-with": { type: "string" },
    email: { type: "string" },
    open: { type: "boolean" },
    parallel: { type: "string" },
  },
  help: restoreHelp(qualityLinesOffline()),
  liveHelp: async (ctx) => restoreHelp(await qualityPriceLines(ctx)),
  run: restore,
};

/**
 * `kinora clip IMAGE|URL "prompt"`: price → confirm → create (the prompt is checked before
 * anything is charged) → upload the image or let the server fetch the URL → follow → download.
 */
import { open, stat } from "node:fs/promises";
import path from "node:path";
import type { ClipJob, Input, Output } from "@kinora/client";
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
import { dollars, formatBytes, truncate } from "../format.js";
import { failureOf, kindNamed, resultFileName } from "../job-kinds.js";
import { downloadStep, followStep, uploadStep } from "../job-steps.js";
import { confirmSpend } from "../prompts.js";
import { startPaidJob } from "../timing.js";
import { refundAfterStop, resumeHint, runningMoneyNote } from "./resume.js";

/** Clips, as `kinora get` and `kinora jobs` handle them too. */
const CLIP = kindNamed("clip");

interface Source {
  imageUrl?: string;
  file?: { path: string; sizeBytes: number; contentType: ClipImageType };
}

type Created = Output<"createClip">;
type ClipImageType = NonNullable<Input<"createClip">["content_type"]>;
type ClipSize = NonNullable<Input<"createClip">["size"]>;

/** The image type from its first bytes: the server checks the bytes too, not the name. */
async function sniffImage(file: string): Promise<ClipImageType | undefined> {
  const fh = await open(file, "r");
  try {
    const head = Buffer.alloc(12);
    await fh.read(head, 0, 12, 0);
    if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
    if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
      return "image/png";
    }
    if (head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") {
      return "image/webp";
    }
    return undefined;
  } finally {
    await fh.close();
  }
}

async function source(image: string): Promise<Source> {
  if (/^https?:\/\//i.test(image)) return { imageUrl: image };
  const info = await stat(image).catch(() => undefined);
  if (!info?.isFile()) throw new UsageError(`${image} is not a file or an http(s) URL.`);
  const contentType = await sniffImage(image);
  if (!contentType) throw new UsageError(`${image} is not a JPEG, PNG or WebP image.`);
  return { file: { path: image, sizeBytes: info.size, contentType } };
}

function options(ctx: ClientContext) {
  // cast: the server checks the size against its enum and refuses another with the allowed values
  const size = (stringArg(ctx.args, "size") ?? "480p") as ClipSize;
  if (size !== "480p" && size !== "720p") throw new UsageError("--size must be 480p or 720p.");
  const seedText = stringArg(ctx.args, "seed");
  const seed = seedText === undefined ? undefined : Number(seedText);
  if (seed !== undefined && (!Number.isInteger(seed) || seed < 0 || seed > 2_147_483_647)) {
    throw new UsageError("--seed must be a whole number from 0 to 2147483647.");
  }
  return {
    size,
    ...(seed === undefined ? {} : { seed }),
    ...(flagArg(ctx.args, "loop") ? { loop: true } : {}),
  };
}

async function create(
  ctx: ClientContext,
  prompt: string,
  src: Source,
  opts: ReturnType<typeof options>,
): Promise<Created> {
  // Stopped while the answer is on its way, the charge may have happened unseen.
  ctx.charge.note =
    "If the clip was made before it stopped, `kinora jobs` lists it; `kinora cancel ID` refunds it while its image has not arrived.";
  try {
    return await ctx.api.call("createClip", {
      prompt,
      ...opts,
      ...(src.imageUrl
        ? { image_url: src.imageUrl }
        : { content_type: src.file?.contentType, image_bytes: src.file?.sizeBytes }),
    });
  } catch (err) {
    // An answer from the server means nothing was made; only a lost answer leaves the note.
    if (err instanceof ApiFailure) ctx.charge.note = undefined;
    if (err instanceof ApiFailure && err.body.refused) {
      throw new CliFailure(
        `The prompt was refused by the content rule (${err.body.refused}): ${err.message} Nothing was charged.`,
        err.exitCode,
        { ...err.fields, charged: false },
      );
    }
    throw err;
  }
}

async function uploadAndStart(ctx: ClientContext, src: Source, created: Created): Promise<void> {
  const file = src.file;
  if (!file || !created.upload_url) return; // image_url: the clip is queued already.
  try {
    await uploadStep(ctx, {
      url: created.upload_url,
      headers: created.upload_headers ?? { "Content-Type": file.contentType },
      file: file.path,
      sizeBytes: file.sizeBytes,
    });
  } catch (err) {
    throw await refundAfterStop(ctx, CLIP, created.job, err);
  }
  // Starting a queued clip returns it unchanged, so a retry after a lost answer is safe.
  const id = created.job.id;
  await startPaidJob(ctx.api, (api) => api.call("startClip", { id }));
}

async function clip(ctx: ClientContext): Promise<number> {
  const [image, prompt, extra] = ctx.args.positionals;
  if (!image || !prompt || extra)
    throw new UsageError('Usage: kinora clip IMAGE|URL "prompt" [--size 720p] [--yes]');
  ctx.api.requireKey();
  const opts = options(ctx);
  const src = await source(image);
  const price = await ctx.api.call("quoteClip", { size: opts.size });
  const what = src.file
    ? `${path.basename(src.file.path)} (${formatBytes(src.file.sizeBytes)})`
    : src.imageUrl;
  // A price the key cannot pay is never put to the person: say what is missing instead.
  await ensureCanPay(ctx, price.amount_cents, `A ${opts.size} clip`);
  const question = `Make a 5-second ${opts.size} clip from ${what}, "${truncate(prompt, 60)}", for ${price.display} from your balance?`;
  if (!(await confirmSpend(ctx.out, question, flagArg(ctx.args, "yes")))) {
    throw new CliFailure("No clip made; nothing was charged.", EXIT.failed);
  }
  const created = await create(ctx, prompt, src, opts);
  const id = created.job.id;
  const charged = dollars(created.job.amount_cents);
  ctx.out.note(`Created ${id}; ${charged} was taken from your balance.`);
  ctx.charge.note = `${id} was charged ${charged} and has not started: \`kinora cancel ${id}\` refunds it.`;
  await uploadAndStart(ctx, src, created);
  const paid = { id, amountCents: created.job.amount_cents, byCard: false };
  ctx.charge.note = runningMoneyNote(paid);
  let job: ClipJob;
  try {
    job = await followStep(ctx, CLIP, id);
  } catch (err) {
    throw resumeHint(ctx, err, paid, "follow");
  }
  const failure = failureOf(CLIP, job);
  if (failure) {
    ctx.charge.note = undefined; // a failed or refused clip's message says it was refunded
    throw failure;
  }
  if (!job.download_url)
    throw new CliFailure(`${job.id} is done but has no download link.`, EXIT.server);
  ctx.charge.note = `${id} is done (${charged} charged): save it with \`kinora get ${id} --download PATH\`.`;
  const given = stringArg(ctx.args, "out");
  const dir = src.file ? path.dirname(path.resolve(src.file.path)) : process.cwd();
  const dest = given
    ? path.resolve(given)
    : freePath(dir, resultFileName(CLIP, job, src.file?.path ?? src.imageUrl));
  const sizeBytes = await downloadStep(ctx, job.download_url, dest).catch((err: unknown) => {
    throw resumeHint(ctx, err, paid, "download");
  });
  ctx.charge.note = undefined;
  ctx.out.result(
    { job, output: dest, size_bytes: sizeBytes },
    `Clip saved to ${dest} (${formatBytes(sizeBytes)}); ${dollars(job.amount_cents)} was charged.`,
  );
  return 0;
}

/** `kinora clip IMAGE "prompt"`: price, confirm, create, upload, follow, download. */
export const clipCommand: ClientCommand = {
  name: "clip",
  summary: "make a 5-second clip from an image and a prompt",
  options: {
    size: { type: "string" },
    seed: { type: "string" },
    loop: { type: "boolean" },
    out: { type: "string", short: "o" },
    yes: { type: "boolean", short: "y" },
  },
  help: `Usage: kinora clip IMAGE|URL "prompt" [--size 480p|720p] [--seed N] [--loop] [--out PATH] [--yes]

Turns one still image (a JPEG, PNG or WebP file, or a public http(s) URL the server
fetches) and a prompt into a 5-second clip with sound, paid from the balance
($0.59 at 480p, $0.99 at 720p). Shows the price and asks first (unless --yes),
uploads the image, follows the clip and saves it — next to the image, named from
the image and the prompt (harbour_slow-push-in_clip_ab12.mp4; never overwriting a
file) unless --out says otherwise.

A prompt that breaks the content rule (no sexual or nude content, nothing
suggestive involving a minor) is refused before anything is charged: the refusal
code is printed and the exit code is 3.

Options:
  --size 480p|720p   frame size (default 480p)
  --seed N           the same image, prompt, size, loop and seed give the same clip
  --loop             end where it began, for a seamless loop
  -o, --out PATH     where to save the MP4
  -y, --yes          agree to the price without asking (needed without a terminal)

Examples:
  kinora clip grandma.jpg "slow push in, birds and wind"
  kinora clip https://example.com/harbour.png "gentle drift, waves" --size 720p --loop --yes
  kinora clip photo.webp "rain on the window" --seed 7 --json | jq -r .output

${COMMON_HELP}`,
  run: clip,
};

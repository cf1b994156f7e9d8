/**
 * How `kinora` shows the jobs of the kinds it has words of its own for — restores (the file,
 * quality and length; a shorter video's part of the price back) and clips (the prompt, size and
 * image; a refusal by the image's content). Optional: a kind missing here is shown by the
 * generic lines of job-kinds.ts (id, status, price, times, links), so a new kind needs no edit
 * in the client; adding one here only words it better.
 */
import type { JobKindName, JobOf } from "@kinora/client";
import { dollars, formatDuration, labelled as line } from "./format.js";

/** What a kind shows beyond the lines every job has. */
export interface KindPresentation<J> {
  /** `kinora jobs`' WHAT column: what the job is made from, in a few words. */
  summary(job: J): string;
  /** `kinora get`'s lines on what the job is, after its status line. */
  what(job: J): string[];
  /** Price lines after the price (restore: the part given back for a shorter video). */
  priceNotes?(job: J): string[];
  /** Links after the download link (clip: where to watch it). */
  links?(job: J): string[];
  /** The result's default file name; `source` is the file or URL it was made from. */
  fileName?(job: J, source?: string): string;
  /** The sentence that says why a refused job was refused, from its refusal code. */
  refusal?(code: string): string;
}

/** Each kind's presentation, by the kind's name; a kind without one gets the generic lines. */
export type Presentations = { readonly [N in JobKindName]?: KindPresentation<JobOf<N>> };

/** Lower-case ASCII words joined by `-` (accents dropped, everything else a separator), at
 * most `max` characters, cut at a word boundary when it can be. */
export function slug(text: string, max = 40): string {
  const words = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (words.length <= max) return words;
  const cut = words.slice(0, max + 1);
  const boundary = cut.lastIndexOf("-");
  return (boundary > max / 2 ? cut.slice(0, boundary) : words.slice(0, max)).replace(/-+$/, "");
}

/** A name without its directory and extension, from a path or an http(s) URL. */
function stem(nameOrUrl: string): string {
  let name = nameOrUrl;
  try {
    if (/^https?:\/\//i.test(nameOrUrl)) name = decodeURIComponent(new URL(nameOrUrl).pathname);
  } catch {
    // Not a URL after all: use it as a name.
  }
  const base = name.split(/[\\/]/).pop() ?? "";
  return base.replace(/\.[A-Za-z0-9]{1,5}$/, "");
}

/** The words kinora has for restores and clips. */
export const PRESENTATIONS: Presentations = {
  restore: {
    summary: (job) => job.filename,
    what(job) {
      const picture = job.width && job.height ? `, ${job.width}×${job.height}` : "";
      const measured =
        job.measured_duration_sec === null
          ? ""
          : `, measured ${formatDuration(job.measured_duration_sec)}`;
      return [
        line("File", job.video_url ? `${job.filename} (from ${job.video_url})` : job.filename),
        line("Quality", job.quality_label),
        ...(job.fade === "faded" ? [line("Fade", "told faded: levels corrected")] : []),
        ...(job.fade === "not_faded" ? [line("Fade", "told not faded: levels kept")] : []),
        line("Length", `${formatDuration(job.duration_sec)} declared${measured}${picture}`),
      ];
    },
    priceNotes(job) {
      const back = job.declared_amount_cents - job.amount_cents;
      if (back <= 0) return [];
      const of = dollars(job.declared_amount_cents);
      return [line("Refund", `${dollars(back)} of ${of} back: shorter than declared`)];
    },
    /** `NAME-restored.mp4`: the person's own name, kept as it is, but never a path. */
    fileName(job) {
      const base = stem(job.filename)
        .replace(/[\p{Cc}/\\:]+/gu, "-")
        .replace(/^\.+/, "");
      return `${base || "video"}-restored.mp4`;
    },
  },
  clip: {
    summary: (job) => `"${job.prompt}"`,
    what(job) {
      const extras = [job.loop ? "loop" : "", job.seed === null ? "" : `seed ${job.seed}`];
      return [
        line("Prompt", job.prompt),
        line("Clip", [`${job.seconds} s ${job.size}`, ...extras.filter(Boolean)].join(", ")),
        ...(job.image_url ? [line("Image", job.image_url)] : []),
      ];
    },
    links: (job) => (job.video_url ? [line("Watch", job.video_url)] : []),
    /**
     * The image's name and the prompt's first words with the id's tail,
     * `harbour_slow-push-in-gulls_clip_ab12.mp4` (a clip read back by id knows only its image_url).
     */
    fileName(job, image) {
      const from = image ?? job.image_url ?? "";
      const parts = [slug(stem(from), 30), slug(job.prompt, 40)].filter(Boolean);
      return `${[...parts, "clip", job.id.slice(-4)].join("_")}.mp4`;
    },
    refusal: (code) => `The image was refused by the content rule (${code}).`,
  },
};

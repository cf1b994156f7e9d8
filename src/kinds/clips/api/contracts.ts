/** Motion clips: configuration and price, make, follow, start, cancel, list. */
import { z } from "@hono/zod-openapi";
import { defineContract, READ_ONLY } from "../../../api/operation.js";
import { JobIdField, pageQuery, UntilField, WaitField } from "../../../api/schemas.js";
import { CLIP_LIST_MAX, CLIP_SIZES } from "../rules/rules.js";
import {
  Clip,
  ClipResponse,
  CreateClipBody,
  CreatedClip,
  clipSpend,
  MotionConfig,
} from "./schemas.js";

const TAGS = ["Motion clips"] as const;
const CLIP = { job_id: JobIdField("clip_5R2kq9WcD1xv0Lm3Tz8HbN", 120) };
const BY_ID = { job_id: "id" } as const;

/** The public clip settings (sizes, prices, limits); no key needed. */
export const getMotionConfig = defineContract({
  id: "getMotionConfig",
  auth: "none",
  input: z.object({}).strict(),
  output: MotionConfig,
  errors: [],
  rest: {
    method: "get",
    path: "/motion/config",
    tags: TAGS,
    summary: "Clip sizes, prices and limits",
    description:
      "Sizes with prices, allowed lengths, image types and size limit, prompt limit, top-up and key-limit ranges, and the refusal codes. No key needed.",
    answer: "The motion configuration.",
  },
});

/** The price of a clip of one size; no key needed. */
export const quoteClip = defineContract({
  id: "quoteClip",
  auth: "none",
  input: z.object({
    size: z
      .enum(CLIP_SIZES, { error: "must be 480p or 720p" })
      .default("480p")
      .openapi({ example: "480p" }),
  }),
  output: z.object({
    size: z.string(),
    amount_cents: z.number().int().openapi({ example: 59 }),
    display: z.string().openapi({ example: "$0.59" }),
  }),
  errors: [],
  policies: { rate: "quote" },
  rest: {
    method: "get",
    path: "/motion/quote",
    tags: TAGS,
    summary: "Price of a clip",
    description: "The price of one 5-second clip at `size` (default 480p). No key needed.",
    answer: "The price.",
  },
});

/** Create a clip: charged now, refunded if it fails or is refused. */
export const createClip = defineContract({
  id: "createClip",
  auth: "key",
  input: CreateClipBody,
  output: CreatedClip,
  errors: [
    "needs_topup",
    "over_limit",
    "wallet_paused",
    "refused",
    "image_fetch_failed",
    "price_above_max",
    "agreement_required",
  ],
  policies: { spends: true, rate: "spend" },
  price: clipSpend,
  rest: {
    method: "post",
    path: "/motion/jobs",
    tags: TAGS,
    summary: "Make a clip",
    description:
      "Checks the prompt against the content rule (422 `refused`, nothing charged), then takes the price from the balance. With `image_url` the image is fetched now and the clip is queued at once; otherwise PUT the image to `upload_url` with `upload_headers` and call start.",
    answer:
      "The clip, the upload link when no image_url was given, and the wallet after the charge.",
  },
  mcp: {
    name: "make_clip",
    followedBy: "get_clip",
    title: "Make a 5-second clip",
    description:
      "Costs $0.59 (480p) or $0.99 (720p), charged now, refunded if it fails or is refused; get the owner's agreement unless given. One image and a prompt make a 5-second clip with sound. Give image_url, or content_type, then PUT the image to upload_url and start_clip.",
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
});

/** The caller's clips, newest first, a page at a time. */
export const listClips = defineContract({
  id: "listClips",
  auth: "key",
  input: pageQuery({ min: 1, max: CLIP_LIST_MAX, example: CLIP_LIST_MAX }),
  output: z.object({
    clips: z.array(Clip).max(CLIP_LIST_MAX),
    next_cursor: z.string().nullable().openapi({
      description: "Pass as `cursor` for the next (older) page; null on the last.",
    }),
  }),
  errors: [],
  rest: {
    method: "get",
    path: "/motion/jobs",
    tags: TAGS,
    summary: "List clips",
    description:
      "Up to 40 clips a page (`limit`, default 40), newest first; `next_cursor` fetches older ones. The wallet key sees all of the wallet's clips; an agent key only its own.",
    answer: "The clips.",
  },
  mcp: {
    name: "list_clips",
    title: "List this key's clips",
    description: "Free. This key's clips, newest first; next_cursor pages back.",
    annotations: READ_ONLY,
  },
});

/** One clip, optionally held until its status changes (`wait_seconds`). */
export const getClip = defineContract({
  id: "getClip",
  auth: "key",
  input: z.object({ ...CLIP, wait_seconds: WaitField, until: UntilField }).strict(),
  output: ClipResponse,
  errors: ["not_found"],
  rest: {
    method: "get",
    path: "/motion/jobs/{id}",
    names: { ...BY_ID, wait_seconds: "wait" },
    tags: TAGS,
    summary: "Read a clip",
    description:
      "Status and progress; `video_url` and `download_url` once done. Another wallet's clip, or another agent key's, is a 404.",
    answer: "The clip.",
  },
  mcp: {
    name: "get_clip",
    title: "Follow a clip",
    description:
      "Free. The clip: status (queued → processing → done; failed or refused are refunded), progress, queue ETA, and once done video_url (plays in a browser) and download_url.",
    annotations: READ_ONLY,
  },
});

/** Queue a clip once its image is uploaded (idempotent). */
export const startClip = defineContract({
  id: "startClip",
  auth: "key",
  input: z.object(CLIP).strict(),
  output: ClipResponse,
  errors: ["not_found", "not_uploaded", "upload_mismatch", "wrong_state"],
  examples: {
    not_uploaded:
      "The image has not been uploaded yet: PUT it to upload_url with upload_headers, then try again.",
    upload_mismatch:
      "The uploaded image is 1048576 bytes but image_bytes was 245760; upload it again with the upload_url.",
    wrong_state: "The clip failed and was refunded; create a new clip.",
  },
  rest: {
    method: "post",
    path: "/motion/jobs/{id}/start",
    names: BY_ID,
    tags: TAGS,
    summary: "Start a clip once its image is uploaded",
    description:
      "Checks the uploaded image (type and size) and queues the clip. Calling it again on a queued, processing or done clip returns the clip unchanged.",
    answer: "The clip, queued.",
  },
  mcp: {
    name: "start_clip",
    followedBy: "get_clip",
    title: "Start a clip",
    description:
      "No further charge. Queues the clip once its image is uploaded (again: unchanged). Then follow it with get_clip.",
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
});

/** Cancel a clip whose image never arrived; refunded at once. */
export const cancelClip = defineContract({
  id: "cancelClip",
  auth: "key",
  input: z.object(CLIP).strict(),
  output: ClipResponse,
  errors: ["not_found", "already_uploaded", "wrong_state"],
  examples: {
    already_uploaded: "The image has already arrived, so the clip can no longer be cancelled.",
    wrong_state:
      "The clip is queued; only a clip whose image never arrived (awaiting_upload) can be cancelled.",
  },
  remedies: {
    already_uploaded: (refer, a) =>
      `Start it with ${refer(startClip, { job_id: String(a.job_id) })}.`,
  },
  rest: {
    method: "post",
    path: "/motion/jobs/{id}/cancel",
    names: BY_ID,
    tags: TAGS,
    summary: "Cancel a clip whose image never arrived",
    description:
      "Only while awaiting_upload and no image has arrived; the price goes back to the balance and the key's allowance at once. Cancelling a cancelled clip returns it unchanged; any other state is a 409.",
    answer: "The clip, cancelled and refunded.",
  },
});

/**
 * The preview kind's operations, as contracts: prices, create, list, read, start, cancel over
 * REST, and over MCP one tool, preview_restore, that makes a preview or follows one.
 */
import { z } from "@hono/zod-openapi";
import { defineContract } from "../../../api/operation.js";
import { FadeField, JobIdField, pageQuery, UntilField, WaitField } from "../../../api/schemas.js";
import { PREVIEW_LIST_MAX } from "../rules/transitions.js";
import {
  CreatedPreview,
  CreatePreviewBody,
  PreviewAnswer,
  PreviewJob,
  PreviewPrices,
  PreviewSourceFields,
} from "./schemas.js";

const TAGS = ["Preview"] as const;
const EXAMPLE_ID = "pv_4f8HkQ2n9LrT1xZcV6bYpA";
const JOB = { job_id: JobIdField(EXAMPLE_ID, 120) };
const BY_ID = { job_id: "id" } as const;
const CHANGE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const RATE_EXAMPLE = "Free previews: at most 6 an hour for this wallet; the next one in 1520 s.";

/** What previews cost (nothing) and their limits; no key needed. */
export const getPreviewPrices = defineContract({
  id: "getPreviewPrices",
  auth: "none",
  input: z.object({}).strict(),
  output: PreviewPrices,
  errors: [],
  rest: {
    method: "get",
    path: "/preview/prices",
    tags: TAGS,
    summary: "Preview limits",
    description: "Previews are free: how long the excerpt is, how many an hour, the longest video.",
  },
});

/** Make a free preview: about 5 s of the video restored at every quality. */
export const createPreview = defineContract({
  id: "createPreview",
  auth: "key",
  input: CreatePreviewBody,
  output: CreatedPreview,
  errors: ["rate_limited", "video_fetch_failed", "over_a_limit"],
  policies: { rate: "create" },
  examples: { rate_limited: RATE_EXAMPLE },
  rest: {
    method: "post",
    path: "/preview/jobs",
    tags: TAGS,
    summary: "Preview a restore (free)",
    description:
      "Free: about 5 s of the video, from where the analysis finds the most damage, restored at every quality, with before/after stills and the plan in words. Give size and content_type, PUT the file to upload_url and start it; or give video_url and it starts on its own. Counted per wallet (PREVIEW_PER_HOUR) and per address.",
  },
});

/** This key's previews, newest first. */
export const listPreviews = defineContract({
  id: "listPreviews",
  auth: "key",
  input: pageQuery({ min: 1, max: PREVIEW_LIST_MAX, example: 20 }),
  output: z.object({ jobs: z.array(PreviewJob), next_cursor: z.string().nullable() }),
  errors: [],
  rest: {
    method: "get",
    path: "/preview/jobs",
    tags: TAGS,
    summary: "List previews",
    description: "This key's previews, newest first.",
  },
});

/** One preview, optionally held until its status changes. */
export const getPreview = defineContract({
  id: "getPreview",
  auth: "key",
  input: z.object({ ...JOB, wait_seconds: WaitField, until: UntilField }).strict(),
  output: PreviewAnswer,
  errors: ["not_found"],
  rest: {
    method: "get",
    path: "/preview/jobs/{id}",
    names: { ...BY_ID, wait_seconds: "wait" },
    tags: TAGS,
    summary: "Read a preview",
    description: "Status; once done the excerpt, each quality's clip, stills and plan in words.",
  },
});

/** Start a preview once its video is uploaded. */
export const startPreview = defineContract({
  id: "startPreview",
  auth: "key",
  input: z.object(JOB).strict(),
  output: PreviewAnswer,
  errors: ["not_found", "not_uploaded", "wrong_state"],
  examples: {
    not_uploaded:
      "The video has not been uploaded yet: PUT it to upload_url, then start the preview.",
    wrong_state: "The preview is cancelled and cannot be started.",
  },
  rest: {
    method: "post",
    path: "/preview/jobs/{id}/start",
    names: BY_ID,
    tags: TAGS,
    summary: "Start a preview",
    description: "Queues the preview once its video arrived; a started one is returned unchanged.",
  },
});

/** Cancel a preview that has not started. */
export const cancelPreview = defineContract({
  id: "cancelPreview",
  auth: "key",
  input: z.object(JOB).strict(),
  output: PreviewAnswer,
  errors: ["not_found", "wrong_state"],
  examples: {
    wrong_state: "The preview is queued; only one that has not started can be cancelled.",
  },
  rest: {
    method: "post",
    path: "/preview/jobs/{id}/cancel",
    names: BY_ID,
    tags: TAGS,
    summary: "Cancel a preview",
    description: "Before start only.",
  },
});

/**
 * The MCP tool: makes a preview from a video_url or, with job_id, follows one (starting one made
 * over REST whose upload has arrived). Uploads go over REST: tools/list has room for one lean
 * tool (test/mcp/tools-size.test.ts).
 */
export const previewRestoreTool = defineContract({
  id: "previewRestore",
  auth: "key",
  input: z
    .object({
      video_url: PreviewSourceFields.video_url,
      // Described in full once, on the restore's create: tools/list is read whole into the
      // assistant's context.
      fade: FadeField.meta({
        description: "Tape faded? faded: correct levels; not_faded: keep them; default auto.",
        default: undefined,
      }),
      job_id: JOB.job_id.optional().meta({ description: "Follow this one." }),
      wait_seconds: WaitField.meta({ description: "Wait for a change." }),
    })
    .strict(),
  output: CreatedPreview.partial({ next: true }),
  errors: ["rate_limited", "video_fetch_failed", "over_a_limit", "not_found", "wrong_state"],
  policies: { rate: "create" },
  examples: { rate_limited: RATE_EXAMPLE },
  remedies: {
    not_found: () =>
      "Only the key that made a preview reads it; preview_restore with video_url makes one.",
  },
  mcp: {
    name: "preview_restore",
    title: "Preview a restore, free",
    description:
      "Free: ~5 s of the worst part of video_url restored at each quality: stills before/after, the plan in words. Then job_id until done.",
    annotations: { ...CHANGE, idempotentHint: false, openWorldHint: true },
  },
});

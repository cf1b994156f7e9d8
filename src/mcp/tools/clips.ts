/** Motion clips: make_clip, start_clip, get_clip, list_clips — the REST services, as tools. */
import { z } from "@hono/zod-openapi";
import { Clip, ClipResponse, CreateClipBody, CreatedClip } from "../../api/clips.js";
import { getClip, listClips, startClip } from "../../services/clips/commands.js";
import { createClip } from "../../services/clips/create.js";
import { IdempotencyKeyArg, JobId, WaitSeconds } from "../schema.js";
import { defineTool, READ_ONLY, reply } from "../tool.js";

export const makeClip = defineTool({
  name: "make_clip",
  title: "Make a 5-second clip",
  description:
    "Costs $0.59 (480p, default) or $0.99 (720p), taken from the balance now and refunded if the clip fails or is refused — state the price and get the owner's agreement first unless they already agreed. One still image plus a prompt (at most 800 characters: the motion and the sound) becomes a 5-second clip with sound. Content rule: no sexual or nude content, and nothing sexual or suggestive involving a minor — a prompt that breaks it is refused and nothing is charged. Give image_url (a public image; the clip starts at once), or content_type (image/jpeg, image/png, image/webp): then PUT the image to upload_url with upload_headers and call start_clip. The image is deleted once the clip is made.",
  input: CreateClipBody.extend({ idempotency_key: IdempotencyKeyArg }),
  output: CreatedClip,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  spends: true,
  run: async (ctx, a) =>
    reply(
      await createClip(ctx.clips, ctx.principal, {
        prompt: a.prompt,
        size: a.size,
        seconds: a.seconds,
        loop: a.loop,
        seed: a.seed,
        imageUrl: a.image_url,
        contentType: a.content_type,
        imageBytes: a.image_bytes,
      }),
    ),
});

export const startClipTool = defineTool({
  name: "start_clip",
  title: "Start a clip",
  description:
    "No further charge (paid at make_clip). Once the image is uploaded to upload_url, queues the clip; starting a started clip returns it unchanged. Then follow it with get_clip.",
  input: z.object({ job_id: JobId }).strict(),
  output: ClipResponse,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: async (ctx, a) => reply({ job: await startClip(ctx.clips, ctx.principal, a.job_id) }),
});

export const getClipTool = defineTool({
  name: "get_clip",
  title: "Follow a clip",
  description:
    "Free. The clip: status (queued → processing → done; failed or refused are refunded), progress and, once done, video_url (plays in a browser) and download_url. Videos are deleted after the retention period (typically 48 hours). wait_seconds (0–25) returns as soon as the clip changes.",
  input: z.object({ job_id: JobId, wait_seconds: WaitSeconds }).strict(),
  output: ClipResponse,
  annotations: READ_ONLY,
  run: async (ctx, a) =>
    reply({
      job: await getClip(ctx.clips, ctx.principal, a.job_id, {
        waitMs: (a.wait_seconds ?? 0) * 1000,
        signal: ctx.signal,
      }),
    }),
});

export const listClipsTool = defineTool({
  name: "list_clips",
  title: "List this key's clips",
  description: "Free. The 40 newest clips this key made, newest first.",
  input: z.object({}).strict(),
  output: z.object({ clips: z.array(Clip).max(40) }),
  annotations: READ_ONLY,
  run: async (ctx) => reply({ clips: await listClips(ctx.clips, ctx.principal) }),
});

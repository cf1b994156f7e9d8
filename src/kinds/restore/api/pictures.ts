/**
 * A done restore's pictures: one moment of the video before and after, made by the worker from
 * both files — the small still (the two side by side, 480 px wide) and the two frames at the
 * result's own size, for judging the restore at full size. Links expire like download_url.
 */
import { z } from "@hono/zod-openapi";
import { defineContract } from "../../../api/operation.js";
import { JobIdField } from "../../../api/schemas.js";

const Link = z.object({
  url: z.string().openapi({ description: "A JPEG; the link expires (expires_at)." }),
  expires_at: z.string(),
});

/** The pictures of a done restore (each null when the worker made none, or once deleted). */
export const RestorePictures = z
  .object({
    job_id: z.string().openapi({ example: "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA" }),
    still: Link.nullable().openapi({
      description: "The frame before (left) and after (right), 480 px wide in all.",
    }),
    frames: z
      .object({
        before: Link,
        after: Link,
        width: z.number().int().openapi({ example: 1440 }),
        height: z.number().int().openapi({ example: 1080 }),
      })
      .nullable()
      .openapi({
        description:
          "The same frame at the result's size (width × height): before (the input, scaled to it) and after.",
      }),
  })
  .openapi("RestorePictures");

/** A done restore's before/after pictures, to its owner (an agent key: only its own jobs). */
export const getRestorePictures = defineContract({
  id: "getRestorePictures",
  auth: "key",
  input: z.object({ job_id: JobIdField("rj_5pX0c1Hq3GvJ2Yb8Lw9RzA") }).strict(),
  output: RestorePictures,
  errors: ["not_found", "wrong_state"],
  examples: {
    not_found: "Restore job not found (or not visible to this key).",
    wrong_state: "This restore is processing: its pictures are made once it is done.",
  },
  rest: {
    method: "get",
    path: "/cloud/jobs/{id}/pictures",
    names: { job_id: "id" },
    tags: ["Cloud restore"],
    summary: "Before/after pictures of a done restore",
    description:
      "One moment of the video before and after the restore, made by the worker: a small still of the two side by side, and the two frames at the result's own size with that size. A picture the worker could not make is null. They go with the job's other files: a job that is not done (or expired) is wrong_state. Another wallet's job, or another agent key's, is a 404.",
    answer: "Links to the pictures.",
  },
});

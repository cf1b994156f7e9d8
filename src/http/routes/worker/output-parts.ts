/**
 * A result in parts, after the output ticket opened its upload: the link for each part (bound
 * to its size and SHA-256), the join, and the abort of a worker that gives up. Every call is
 * authenticated by the work item's output token, whose key is the only key it reaches.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Platform } from "../../../services/platform.js";
import {
  abortResultUpload,
  completeResultUpload,
  recordResultPart,
  resultPartLink,
} from "../../../services/uploads/result-parts.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";
import { outputClaims } from "./output-ticket.js";

const UploadId = z.string().min(1).max(64).openapi({ description: "From the output ticket." });
const PartNumber = z.number().int().min(1).max(10_000);
const Sha256 = z.string().max(64).openapi({ description: "Base64 SHA-256 of the part's bytes." });

const EXAMPLE_ID = "up_3f9c2a7d1b8e4c6f";
const EXAMPLE_SHA = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";

const PartBody = z
  .object({ upload_id: UploadId, part_number: PartNumber, sha256: Sha256 })
  .strict()
  .openapi({ example: { upload_id: EXAMPLE_ID, part_number: 1, sha256: EXAMPLE_SHA } });

const SentBody = z
  .object({
    upload_id: UploadId,
    part_number: PartNumber,
    etag: z.string().min(1).max(200).openapi({ description: "What the part's PUT answered." }),
    sha256: Sha256,
  })
  .strict()
  .openapi({
    example: {
      upload_id: EXAMPLE_ID,
      part_number: 1,
      etag: '"9b2cf535f27731c9"',
      sha256: EXAMPLE_SHA,
    },
  });

/** Names the upload (complete, abort). */
const UploadBody = z
  .object({ upload_id: UploadId })
  .strict()
  .openapi({ example: { upload_id: EXAMPLE_ID } });

const json = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { "application/json": { schema } } },
});

const base = { method: "post" as const, tags: ["Worker API"] };

/** POST /worker/output-part, output-part-sent, output-complete and output-abort. */
export function registerOutputParts(app: Router, p: Platform) {
  registerPartLink(app, p);
  registerPartSent(app, p);
  registerEnd(app, p);
}

/** POST /worker/output-part: one part's link. */
function registerPartLink(app: Router, p: Platform) {
  const part = createRoute({
    ...base,
    path: "/worker/output-part",
    operationId: "workerOutputPart",
    summary: "Get the upload link of one part of a job's result",
    request: json(PartBody),
    responses: {
      200: {
        description: "Where to PUT the part, with exactly these headers.",
        content: {
          "application/json": {
            schema: z.object({
              part_number: z.number().int(),
              size_bytes: z.number().int(),
              url: z.string(),
              headers: z.record(z.string(), z.string()),
              expires_at: z.string(),
            }),
          },
        },
      },
      ...errorResponses(400, 401, 404, 409),
    },
  });
  app.openapi(part, async (c) => {
    const claims = outputClaims(p, c);
    const b = c.req.valid("json");
    const ticket = await resultPartLink(p, claims.key, b.upload_id, b);
    return c.json(ticket, 200);
  });
}

/** POST /worker/output-part-sent: a part's ETag, to the record. */
function registerPartSent(app: Router, p: Platform) {
  const sent = createRoute({
    ...base,
    path: "/worker/output-part-sent",
    operationId: "workerOutputPartSent",
    summary: "Report one part of a job's result as sent",
    request: json(SentBody),
    responses: {
      200: {
        description: "The part is recorded.",
        content: { "application/json": { schema: z.object({ recorded: z.literal(true) }) } },
      },
      ...errorResponses(400, 401, 404, 409),
    },
  });
  app.openapi(sent, async (c) => {
    const claims = outputClaims(p, c);
    const b = c.req.valid("json");
    await recordResultPart(p, claims.key, b.upload_id, b);
    return c.json({ recorded: true as const }, 200);
  });
}

/** POST /worker/output-complete and /worker/output-abort: the join, or giving up. */
function registerEnd(app: Router, p: Platform) {
  const complete = createRoute({
    ...base,
    path: "/worker/output-complete",
    operationId: "workerOutputComplete",
    summary: "Join the parts of a job's result",
    request: json(UploadBody),
    responses: {
      200: {
        description: "The result is stored.",
        content: { "application/json": { schema: z.object({ size_bytes: z.number().int() }) } },
      },
      ...errorResponses(400, 401, 404, 409),
    },
  });
  app.openapi(complete, async (c) => {
    const claims = outputClaims(p, c);
    return c.json(await completeResultUpload(p, claims.key, c.req.valid("json").upload_id), 200);
  });

  const abort = createRoute({
    ...base,
    path: "/worker/output-abort",
    operationId: "workerOutputAbort",
    summary: "Give up sending a job's result in parts",
    request: json(UploadBody),
    responses: {
      200: {
        description: "The parts are freed.",
        content: { "application/json": { schema: z.object({ aborted: z.literal(true) }) } },
      },
      ...errorResponses(400, 401, 404),
    },
  });
  app.openapi(abort, async (c) => {
    const claims = outputClaims(p, c);
    await abortResultUpload(p, claims.key, c.req.valid("json").upload_id);
    return c.json({ aborted: true as const }, 200);
  });
}

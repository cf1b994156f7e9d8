/**
 * Where a worker stores a job's result: POST /worker/output-ticket with the work item's output
 * token answers one presigned PUT for exactly the result's size, or — for a result above the
 * server's single-upload size, when the worker says it can send parts — an upload in parts of
 * the result (./output-parts.ts sends the parts' links and joins them).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError, unauthorized } from "../../../domain/errors.js";
import { OUTPUT_TOKEN_HEADER, verifyOutputToken } from "../../../jobs/output-token.js";
import type { Platform } from "../../../services/platform.js";
import { openResultUpload } from "../../../services/uploads/result-parts.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";

const Body = z
  .object({
    size_bytes: z.number().int().min(1),
    content_type: z
      .string()
      .regex(/^(video|image)\/[\w.+-]+$/, "must be a video/* or image/* type"),
    parts_ok: z.boolean().optional().openapi({
      description:
        "The worker can send the result in parts: above the server's single-upload size it gets an upload in parts instead of one link (older workers leave it out and get one link).",
    }),
  })
  .strict()
  .openapi({ example: { size_bytes: 48000000, content_type: "video/mp4" } });

const ResultUpload = z
  .object({
    upload_id: z.string(),
    part_size_bytes: z.number().int(),
    part_count: z.number().int(),
    checksum: z.literal("sha256"),
  })
  .openapi({
    description:
      "Send the result in parts: each part's link from POST /worker/output-part, then POST /worker/output-complete.",
  });

/**
 * The claims of the output token the request carries (the key it may write, its byte cap);
 * 401 when it is missing, forged or expired.
 */
export function outputClaims(p: Platform, c: Context) {
  const claims = verifyOutputToken(
    p.signer,
    c.req.header(OUTPUT_TOKEN_HEADER) ?? "",
    p.clock().getTime(),
  );
  if (!claims) throw unauthorized("The output token is missing, invalid or expired.");
  return claims;
}

/** POST /worker/output-ticket: one link for the result, or an upload of it in parts. */
export function registerOutputTicket(app: Router, p: Platform) {
  const route = createRoute({
    method: "post",
    path: "/worker/output-ticket",
    operationId: "workerOutputTicket",
    tags: ["Worker API"],
    summary: "Get an upload link for a job's result",
    description: `Authenticated by the signed token of the work item (header ${OUTPUT_TOKEN_HEADER}); answers a PUT link for exactly size_bytes, or (parts_ok, above UPLOAD_SINGLE_MAX_BYTES) an upload in parts.`,
    request: { body: { required: true, content: { "application/json": { schema: Body } } } },
    responses: {
      200: {
        description: "Where to PUT the result.",
        content: {
          "application/json": {
            schema: z.object({
              url: z.string().optional(),
              headers: z.record(z.string(), z.string()).optional(),
              upload: ResultUpload.optional(),
            }),
          },
        },
      },
      ...errorResponses(400, 401, 413),
    },
  });
  app.openapi(route, async (c) => {
    const claims = outputClaims(p, c);
    const b = c.req.valid("json");
    if (b.size_bytes > claims.maxBytes) {
      throw new ApiError("too_large", `The result is larger than ${claims.maxBytes} bytes.`);
    }
    if (b.parts_ok && b.size_bytes > p.config.uploads.singleMaxBytes) {
      const upload = await openResultUpload(p, claims.key, {
        sizeBytes: b.size_bytes,
        contentType: b.content_type,
        partBytes: p.config.uploads.partBytes,
        expiresAt: new Date(claims.expSec * 1000),
      });
      return c.json({ upload }, 200);
    }
    const ticket = await p.storage.presignUpload(claims.key, {
      contentType: b.content_type,
      sizeBytes: b.size_bytes,
      expiresInSec: 3600,
    });
    return c.json({ url: ticket.url, headers: ticket.headers }, 200);
  });
}

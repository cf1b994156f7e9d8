import { createRoute, z } from "@hono/zod-openapi";
import { ApiError, unauthorized } from "../../../domain/errors.js";
import { OUTPUT_TOKEN_HEADER, verifyOutputToken } from "../../../jobs/output-token.js";
import type { Platform } from "../../../services/platform.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";

const Body = z
  .object({
    size_bytes: z.number().int().min(1),
    content_type: z
      .string()
      .regex(/^(video|image)\/[\w.+-]+$/, "must be a video/* or image/* type"),
  })
  .strict()
  .openapi({ example: { size_bytes: 48000000, content_type: "video/mp4" } });

export function registerOutputTicket(app: Router, p: Platform) {
  const route = createRoute({
    method: "post",
    path: "/worker/output-ticket",
    operationId: "workerOutputTicket",
    tags: ["Worker API"],
    summary: "Get an upload link for a job's result",
    description: `Authenticated by the signed token of the work item (header ${OUTPUT_TOKEN_HEADER}); answers a PUT link for exactly size_bytes.`,
    request: { body: { required: true, content: { "application/json": { schema: Body } } } },
    responses: {
      200: {
        description: "Where to PUT the result.",
        content: {
          "application/json": {
            schema: z.object({ url: z.string(), headers: z.record(z.string(), z.string()) }),
          },
        },
      },
      ...errorResponses(400, 401, 413),
    },
  });
  app.openapi(route, async (c) => {
    const claims = verifyOutputToken(
      p.signer,
      c.req.header(OUTPUT_TOKEN_HEADER) ?? "",
      p.clock().getTime(),
    );
    if (!claims) throw unauthorized("The output token is missing, invalid or expired.");
    const b = c.req.valid("json");
    if (b.size_bytes > claims.maxBytes) {
      throw new ApiError("too_large", `The result is larger than ${claims.maxBytes} bytes.`);
    }
    const ticket = await p.storage.presignUpload(claims.key, {
      contentType: b.content_type,
      sizeBytes: b.size_bytes,
      expiresInSec: 3600,
    });
    return c.json({ url: ticket.url, headers: ticket.headers }, 200);
  });
}

import { createRoute } from "@hono/zod-openapi";
import { CreateClipBody, CreatedClip } from "../../../api/clips.js";
import { createClip } from "../../../services/clips/create.js";
import type { ClipDeps } from "../../../services/clips/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerCreateClip(app: Router, deps: ClipDeps) {
  const route = createRoute({
    method: "post",
    path: "/motion/jobs",
    operationId: "createClip",
    tags: ["Motion clips"],
    summary: "Make a clip",
    description:
      "Checks the prompt against the content rule (422 `refused`, nothing charged), then takes the price from the balance. With `image_url` the image is fetched now and the clip is queued at once; otherwise PUT the image to `upload_url` with `upload_headers` and call start.",
    security: bearerSecurity,
    middleware: [requireKey(deps)] as const,
    request: {
      body: { required: true, content: { "application/json": { schema: CreateClipBody } } },
    },
    responses: {
      200: {
        description:
          "The clip, the upload link when no image_url was given, and the wallet after the charge.",
        content: {
          "application/json": {
            schema: CreatedClip,
          },
        },
      },
      ...errorResponses(400, 401, 402, 403, 422),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const principal = c.get("principal");
    const result = await createClip(deps, principal, {
      prompt: body.prompt,
      size: body.size,
      seconds: body.seconds,
      loop: body.loop,
      seed: body.seed,
      imageUrl: body.image_url,
      contentType: body.content_type,
      imageBytes: body.image_bytes,
    });
    return c.json(result, 200);
  });
}

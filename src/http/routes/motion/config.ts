import { createRoute } from "@hono/zod-openapi";
import { MotionConfig } from "../../../api/clips.js";
import { motionConfig } from "../../../services/clips/config.js";
import type { Router } from "../../router.js";

export function registerMotionConfig(app: Router) {
  const route = createRoute({
    method: "get",
    path: "/motion/config",
    operationId: "getMotionConfig",
    tags: ["Motion clips"],
    summary: "Clip sizes, prices and limits",
    description:
      "Sizes with prices, allowed lengths, image types and size limit, prompt limit, top-up and key-limit ranges, and the refusal codes. No key needed.",
    responses: {
      200: {
        description: "The motion configuration.",
        content: { "application/json": { schema: MotionConfig } },
      },
    },
  });
  app.openapi(route, (c) => c.json(motionConfig(), 200));
}

/** The worker API's own credential: `Authorization: Bearer <WORKER_TOKEN>`, never a wallet key. */
import { createMiddleware } from "hono/factory";
import { ApiError, unauthorized } from "../../../domain/errors.js";
import type { AppEnv } from "../../env.js";
import { bearerMatches } from "../../middleware/auth.js";

export function requireWorkerToken(token: string | undefined) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!token) {
      throw new ApiError(
        "unavailable",
        "The worker API is off: set WORKER_TOKEN (16+ characters) on the server and give the same token to `kinora worker --token`.",
      );
    }
    if (!bearerMatches(c.req.header("authorization"), token)) {
      throw unauthorized("The worker API needs Authorization: Bearer <WORKER_TOKEN>.");
    }
    await next();
  });
}

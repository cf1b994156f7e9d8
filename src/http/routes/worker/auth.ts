/** The worker API's own credential: `Authorization: Bearer <WORKER_TOKEN>`, never a wallet key. */
import { createHash, timingSafeEqual } from "node:crypto";
import { createMiddleware } from "hono/factory";
import { ApiError, unauthorized } from "../../../domain/errors.js";
import type { AppEnv } from "../../env.js";

const digest = (s: string) => createHash("sha256").update(s).digest();

export function requireWorkerToken(token: string | undefined) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!token) {
      throw new ApiError(
        "unavailable",
        "The worker API is off: set WORKER_TOKEN (16+ characters) on the server and give the same token to `kinora worker --token`.",
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), digest(token))) {
      throw unauthorized("The worker API needs Authorization: Bearer <WORKER_TOKEN>.");
    }
    await next();
  });
}

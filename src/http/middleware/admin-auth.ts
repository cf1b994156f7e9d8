/** Operator endpoints: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
import { createHash, timingSafeEqual } from "node:crypto";
import { createMiddleware } from "hono/factory";
import { unauthorized } from "../../domain/errors.js";
import type { AppEnv } from "../env.js";

const digest = (s: string) => createHash("sha256").update(s).digest();

export function requireAdmin(adminToken: string) {
  const expected = digest(adminToken);
  return createMiddleware<AppEnv>(async (c, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
      throw unauthorized("Operator endpoints need Authorization: Bearer <ADMIN_TOKEN>.");
    }
    await next();
  });
}

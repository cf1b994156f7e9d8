/**
 * JSON endpoints take JSON. A body sent with another Content-Type would otherwise be read as
 * "no fields" and produce a confusing "field is required"; say what is actually wrong.
 */
import { createMiddleware } from "hono/factory";
import { invalidRequest } from "../../domain/errors.js";
import type { AppEnv } from "../env.js";

/** Refuses a body that is not JSON on POST, PUT and PATCH. */
export const jsonBodiesOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method === "POST" || c.req.method === "PUT" || c.req.method === "PATCH") {
    const length = c.req.header("content-length");
    const hasBody =
      (length !== undefined && length !== "0") || c.req.header("transfer-encoding") !== undefined;
    const type = c.req.header("content-type") ?? "";
    if (hasBody && !/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) {
      throw invalidRequest("Send the request body as JSON with Content-Type: application/json.");
    }
  }
  await next();
});

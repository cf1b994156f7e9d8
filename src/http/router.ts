/** An OpenAPIHono whose validation failures become the spec's 400 body naming the field. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { describeZodError } from "../api/validation.js";
import type { AppEnv } from "./env.js";

const WHERE: Record<string, string> = {
  json: "request body",
  query: "query string",
  param: "path",
  header: "headers",
};

export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        // A malformed id names nothing: 404, as for an id that does not exist.
        if (result.target === "param") {
          const detail = "Not found: the id in the path does not name anything here.";
          return c.json({ detail, code: "not_found" }, 404);
        }
        const detail = describeZodError(result.error, WHERE[result.target] ?? result.target);
        return c.json({ detail, code: "invalid_field" }, 400);
      }
    },
  });
}

export type Router = ReturnType<typeof createRouter>;

export const bearerSecurity = [{ bearer: [] }];
export const optionalBearerSecurity: Record<string, string[]>[] = [{}, { bearer: [] }];

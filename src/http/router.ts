/** An OpenAPIHono whose validation failures become the spec's 400 body naming the field. */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.js";
import { describeZodError } from "./errors.js";

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
        return c.json(
          { detail: describeZodError(result.error, WHERE[result.target] ?? result.target) },
          400,
        );
      }
    },
  });
}

export type Router = ReturnType<typeof createRouter>;

export const bearerSecurity = [{ bearer: [] }];

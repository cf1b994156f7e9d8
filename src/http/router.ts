/** An OpenAPIHono whose validation failures become the spec's 400 body naming the field. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { invalidInput } from "../api/validation.js";
import { ApiError } from "../domain/errors.js";
import type { AppEnv } from "./env.js";
import { errorJson } from "./errors.js";

const WHERE: Record<string, string> = {
  json: "request body",
  query: "query string",
  param: "path",
  header: "headers",
};

/** A Hono app with OpenAPI routes whose validation errors answer in the API's error body. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        // A malformed id names nothing: 404, as for an id that does not exist.
        if (result.target === "param") {
          const detail = "Not found: the id in the path does not name anything here.";
          return errorJson(c, new ApiError("not_found", detail));
        }
        return errorJson(c, invalidInput(result.error, WHERE[result.target] ?? result.target));
      }
    },
  });
}

/** The app every route registers on. */
export type Router = ReturnType<typeof createRouter>;

/**
 * The size cap of every request body that is not a file upload: JSON and form bodies are
 * small, and uploads go to storage links, never through these routes. Each route family that
 * takes a body puts this in front of it (operations, MCP, OAuth, the pages' forms).
 */
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../../domain/errors.js";
import { JSON_BODY_MAX_BYTES } from "../../domain/limits.js";

/** Refuses a JSON body above JSON_BODY_MAX_BYTES with too_large. */
export const smallBody = bodyLimit({
  maxSize: JSON_BODY_MAX_BYTES,
  onError: () => {
    throw new ApiError(
      "too_large",
      `The request body is too large; JSON bodies are limited to ${JSON_BODY_MAX_BYTES / 1024} KB.`,
    );
  },
});

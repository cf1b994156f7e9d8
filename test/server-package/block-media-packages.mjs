/**
 * `node --import ./block-media-packages.mjs …`: runs a process as if the worker's optional
 * media packages were not installed. `import` goes through the hooks of block-media-hooks.mjs,
 * `require` (and require.resolve) through the patched CommonJS resolver. Each refusal is said
 * on stderr ("test-blocker: refused …"), so a test can tell "never asked for" from "asked for
 * and handled".
 */
import Module, { register } from "node:module";
import { isBlocked, notFound } from "./block-media-hooks.mjs";

register(new URL("./block-media-hooks.mjs", import.meta.url));

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (isBlocked(request)) {
    const err = notFound(request);
    err.code = "MODULE_NOT_FOUND";
    throw err;
  }
  return resolveFilename.call(this, request, ...rest);
};

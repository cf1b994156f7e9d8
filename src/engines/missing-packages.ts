/**
 * The worker's media packages (ffmpeg/ffprobe builds, tfjs and nsfwjs) are optional
 * dependencies of @kinora/server: an API-only node installs without them. When a worker runs
 * without them, it says in one sentence what is missing and how to get it, instead of a stack
 * trace from deep inside a job.
 */

import { createRequire } from "node:module";
import { recordOf } from "../domain/records.js";

/** How a node that runs jobs gets the optional packages. */
export const INSTALL_OPTIONAL = "`npm install @kinora/server --include=optional`";

/** A package or program a worker needs is not installed; the message says how to get it. */
export class MissingMediaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingMediaError";
  }
}

/** Whether `err` is Node's "cannot find module" (from require or from import). */
export function isModuleNotFound(err: unknown): boolean {
  const code = recordOf(err).code;
  return code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND";
}

/**
 * Which of `specifiers` the ES module resolver cannot find from here (the same resolver, and
 * the same node_modules, the lazy imports use; CommonJS's where there is none, as under
 * vitest's module runner). Nothing is loaded.
 */
export function unresolvable(specifiers: readonly string[]): string[] {
  const resolve =
    typeof import.meta.resolve === "function"
      ? import.meta.resolve
      : createRequire(import.meta.url).resolve;
  return specifiers.filter((specifier) => {
    try {
      resolve(specifier);
      return false;
    } catch (err) {
      if (isModuleNotFound(err)) return true;
      throw err;
    }
  });
}

/** "a", "a and b", "a, b and c". */
export function listInWords(names: readonly string[]): string {
  return names.length < 2
    ? (names[0] ?? "")
    : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

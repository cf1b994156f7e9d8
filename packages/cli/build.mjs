#!/usr/bin/env node
/**
 * Bundles the client command (src/main.ts) into dist/kinora.js: one ES module holding the
 * commands and their small helpers (prompts, progress bars), with the SDK (@kinora/client) left
 * a dependency — so an install is the SDK and this file, a few hundred KB, nothing else.
 * Run by `npm pack` (prepack) and `npm run build -w kinora`.
 *
 * The build fails when the bundle would load at run time anything that is neither inside it,
 * a Node built-in, nor a declared dependency: an installed client has nothing else to load (a
 * run-time `require("cli-progress")` once slipped past esbuild and crashed every install).
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { loadsFromOutside } from "./bundle-check.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(here, "package.json"), "utf8"));
rmSync(path.join(here, "dist"), { recursive: true, force: true });
const outfile = path.join(here, "dist", "kinora.js");
await build({
  entryPoints: [path.join(here, "src", "main.ts")],
  outfile,
  format: "esm",
  platform: "node",
  target: "node20",
  bundle: true,
  // The SDK stays a package (shared with scripts that use it too); the server is never bundled:
  // it is imported by name, and only when installed beside the client.
  external: ["@kinora/client", "@kinora/server"],
  // cli-progress is CommonJS: its own require()s of Node built-ins need a require in an ES module.
  banner: {
    js: "import { createRequire as __kinoraRequire } from 'node:module'; const require = __kinoraRequire(import.meta.url);",
  },
  logLevel: "warning",
});

// The server package is optional: main.ts imports it by a variable name, and says how to get
// it when it is missing.
const outside = loadsFromOutside(readFileSync(outfile, "utf8"), [
  ...Object.keys(pkg.dependencies ?? {}),
  "@kinora/server",
]);
if (outside.length > 0) {
  throw new Error(
    `dist/kinora.js would load ${outside.join(", ")} at run time, which an installed client does not have: bundle it or declare it in dependencies.`,
  );
}

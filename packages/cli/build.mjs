#!/usr/bin/env node
/**
 * Bundles the client command (src/main.ts) into dist/kinora.js: one ES module holding the
 * commands and their small helpers (prompts, progress bars), with the SDK (@kinora/client) left
 * a dependency — so an install is the SDK and this file, a few hundred KB, nothing else.
 * Run by `npm pack` (prepack) and `npm run build -w kinora`.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
rmSync(path.join(here, "dist"), { recursive: true, force: true });
await build({
  entryPoints: [path.join(here, "src", "main.ts")],
  outfile: path.join(here, "dist", "kinora.js"),
  format: "esm",
  platform: "node",
  target: "node20",
  bundle: true,
  // The SDK stays a package (shared with scripts that use it too); the server is never bundled:
  // it is imported by name, and only when installed beside the client.
  external: ["@kinora/client", "@kinora/server"],
  // cli-progress is CommonJS: give the bundle a require for it.
  banner: {
    js: "import { createRequire as __kinoraRequire } from 'node:module'; const require = __kinoraRequire(import.meta.url);",
  },
  logLevel: "warning",
});

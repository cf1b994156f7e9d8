#!/usr/bin/env node
/**
 * Builds this package's dist/ from the repository's src/ (run by `npm pack` / `npm publish`
 * through `prepack`): the same esbuild bundle as the checkout's dist/, with the server's
 * commands (src/server-commands.ts) as its entry point. The database template is not built
 * here: the installed server makes it on its first start, in its cache directory.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildDist } from "../../../scripts/build.mjs";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
await buildDist({
  outDir: path.join(here, "dist"),
  entries: ["server-commands.ts"],
  template: false,
});

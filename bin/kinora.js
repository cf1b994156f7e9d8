#!/usr/bin/env node
// Starts the compiled service from dist/. `npm install` builds it; when dist/ is missing or
// older than src/ (a fresh clone installed with --ignore-scripts, or an edited source), it is
// rebuilt here first, in about a second, and then used.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDistFresh } from "../scripts/fingerprint.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (!isDistFresh(root)) {
  process.stderr.write("kinora: compiling src/ to dist/ …\n");
  const { buildDist } = await import("../scripts/build.mjs");
  await buildDist({ quiet: true });
}
await import(pathToFileURL(path.join(root, "dist", "main.js")).href);

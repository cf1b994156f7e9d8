#!/usr/bin/env node
// The `kinora` command: the bundle build.mjs makes (npm pack / npm run build runs it).
import { existsSync } from "node:fs";

const bundle = new URL("../dist/kinora.js", import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write("kinora: this copy is not built; run `npm run build -w kinora` first.\n");
  process.exit(1);
}
await import(bundle.href);

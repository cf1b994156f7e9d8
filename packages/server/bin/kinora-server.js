#!/usr/bin/env node
// `kinora-server serve | worker | admin …`: the server's commands from the compiled bundle
// (src/server-commands.ts, built into dist/ when the package is packed).
import { failureMessage, runServerCommand } from "../dist/server-commands.js";

/** Exits once stdout and stderr have taken everything written (pipes are async on some OSes). */
async function exitAfterFlush(code) {
  await Promise.all(
    [process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write("", resolve))),
  );
  process.exit(code);
}

runServerCommand(process.argv.slice(2)).then(
  (code) => {
    // -1: a server or worker keeps running until SIGINT/SIGTERM.
    if (code >= 0) void exitAfterFlush(code);
  },
  (err) => {
    process.stderr.write(`kinora-server: ${failureMessage(err)}\n`);
    process.exit(1);
  },
);

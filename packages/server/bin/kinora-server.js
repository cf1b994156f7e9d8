#!/usr/bin/env node
// `kinora-server serve | worker | admin …`: the server's commands from the compiled bundle
// (src/server-commands.ts, built into dist/ when the package is packed).
import { serverMain } from "../dist/server-commands.js";

serverMain(process.argv.slice(2));

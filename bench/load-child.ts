/**
 * The load generator in a process of its own (forked by bench/mcp.ts): it runs `httpLoad` when
 * asked over IPC and answers the rate, so the parent's CPU time during a round is the server's
 * alone — what "by server CPU" compares.
 */
import { httpLoad } from "./lib.js";

type Ask = {
  url: string;
  total: number;
  concurrency: number;
  headers?: Record<string, string>;
  body?: string;
};

process.on("message", (ask: Ask | "stop") => {
  if (ask === "stop") process.exit(0);
  httpLoad(ask.url, ask).then(
    (rps) => process.send?.({ rps }),
    (err: Error) => process.send?.({ error: err.message }),
  );
});
process.send?.({ ready: true });

/**
 * Progress notifications for one tool call: when the client sent `_meta.progressToken` and
 * reads the answer as a stream (./server.ts sets `notify` only then), a call that waits — a
 * `get_restore` or `get_clip` with `wait_seconds` — reports each progress change it sees on the
 * request's own stream before the result. Otherwise nothing listens and nothing is sent.
 */
import type { CallContext } from "../api/operation.js";
import type { Logger } from "../logger.js";
import type { McpCall } from "./context.js";

/** The reporter a call's CallContext carries, or undefined when nobody listens. */
export function progressReporter(call: McpCall, log: Logger): CallContext["progress"] {
  const { notify, progressToken } = call;
  if (!notify || progressToken === undefined) return undefined;
  let last = -1;
  return (fraction, message) => {
    // The protocol requires progress to increase with every notification of a request.
    if (!(fraction > last)) return;
    last = fraction;
    notify({
      method: "notifications/progress",
      params: { progressToken, progress: fraction, total: 1, message },
    }).catch((err) => log.debug("progress notification not sent", { err }));
  };
}

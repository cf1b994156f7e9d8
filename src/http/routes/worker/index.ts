/**
 * The HTTP worker API: remote `kinora worker` processes claim, heartbeat, note, complete and fail
 * over HTTP with WORKER_TOKEN, so a GPU box needs no database or storage credentials. It is
 * generic over the job queues of every feature (it names no kind: the queues' definitions do);
 * claims long-poll on the same in-process WorkSource (LISTEN/NOTIFY wake-ups) the embedded
 * workers use.
 */

import type { DefinedQueue } from "../../../jobs/queue.js";
import { createDbWorkSource, type DbWorkSource } from "../../../jobs/work-source.js";
import type { Platform } from "../../../services/platform.js";
import { smallBody } from "../../middleware/body-limit.js";
import { refuseNulOrDeepJsonBody } from "../../middleware/refuse-nul.js";
import type { Router } from "../../router.js";
import { requireWorkerToken } from "./auth.js";
import { registerClaim } from "./claim.js";
import { registerOutputParts } from "./output-parts.js";
import { registerOutputTicket } from "./output-ticket.js";
import { registerReports } from "./report.js";

/** The HTTP worker API (`kinora worker`): claim, heartbeat, report, for every mounted queue. */
export function registerWorkerApi(
  app: Router,
  p: Platform,
  queues: DefinedQueue[],
  /** The server's own work source (so a draining server stops handing out work); tests omit it. */
  shared?: () => DbWorkSource | undefined,
) {
  let source: Promise<DbWorkSource> | undefined;
  const getSource = () => {
    const own = shared?.();
    if (own) return Promise.resolve(own);
    source ??= createDbWorkSource(p.database, queues, { leaseMs: p.config.workers.leaseMs });
    return source;
  };
  // Claims and reports are small JSON; results go to storage links, never through here.
  app.use("/worker/*", smallBody);
  // PostgreSQL text cannot hold a NUL: a report carrying one is the worker's mistake (400).
  app.use("/worker/*", refuseNulOrDeepJsonBody);
  const auth = requireWorkerToken(p.config.workers.token);
  const kinds = queues.map((q) => q.kind);
  registerClaim(app, auth, getSource, kinds);
  registerReports(app, auth, getSource, kinds);
  registerOutputTicket(app, p);
  registerOutputParts(app, p);
}

/**
 * The HTTP worker API: remote `kinora worker` processes claim, heartbeat, complete and fail
 * over HTTP with WORKER_TOKEN, so a GPU box needs no database or storage credentials. It is
 * generic over the JobQueues of every feature; claims long-poll on the same in-process
 * WorkSource (LISTEN/NOTIFY wake-ups) the embedded workers use.
 */

import type { JobQueue } from "../../../jobs/work.js";
import { createDbWorkSource, type DbWorkSource } from "../../../jobs/work-source.js";
import type { Platform } from "../../../services/platform.js";
import type { Router } from "../../router.js";
import { requireWorkerToken } from "./auth.js";
import { registerClaim } from "./claim.js";
import { registerOutputTicket } from "./output-ticket.js";
import { registerReports } from "./report.js";

export function registerWorkerApi(
  app: Router,
  p: Platform,
  queues: JobQueue[],
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
  const auth = requireWorkerToken(p.config.workers.token);
  registerClaim(app, auth, getSource);
  registerReports(app, auth, getSource);
  registerOutputTicket(app, p);
}

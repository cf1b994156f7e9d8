/** Mounts every cloud restore route. */
import type { RestoreDeps } from "../../../services/restore/deps.js";
import type { Router } from "../../router.js";
import { registerCancelJob } from "./cancel-job.js";
import { registerCreateJob } from "./create-job.js";
import { registerGetJob } from "./get-job.js";
import { registerListJobs } from "./list-jobs.js";
import { registerPrices } from "./prices.js";
import { registerQuote } from "./quote.js";
import { registerStartJob } from "./start-job.js";

export function registerCloudRoutes(app: Router, p: RestoreDeps) {
  registerQuote(app);
  registerPrices(app);
  registerCreateJob(app, p);
  registerListJobs(app, p);
  registerGetJob(app, p);
  registerStartJob(app, p);
  registerCancelJob(app, p);
}

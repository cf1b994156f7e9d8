/**
 * Cloud restore, declared once: its job definition, id prefix, operations and the roles the
 * surfaces reach it by, what assistants are told, the executor the configured engine runs, and
 * its feature (the /cloud routes, its queue, the in-process executor and the retention
 * sweeper). src/job-kinds.ts lists it.
 */

import type { FeatureFactory } from "../../feature.js";
import type { FetchLike } from "../../workers/transfer.js";
import { defineJobKind, kindFeature } from "../kind.js";
import * as c from "./api/contracts.js";
import { RESTORE_INSTRUCTIONS } from "./api/instructions.js";
import { getRestorePictures } from "./api/pictures.js";
import { restoreExecutorFromConfig } from "./executor/engine.js";
import {
  RESTORE_CHECKOUT_OPERATIONS,
  RESTORE_OPERATIONS,
  restoreCheckoutOperations,
  restoreOperations,
} from "./operations.js";
import { restoreLedgerText } from "./rules/ledger-text.js";
import { getJobForCheckout, markCheckoutPaid } from "./services/checkout-hooks.js";
import { restoreJobs } from "./services/definition.js";
import type { VideoFetchSeam } from "./services/deps.js";
import { jobView } from "./services/views.js";

interface RestoreFeatureOptions {
  /** How in-process workers fetch URLs (tests route in-process URLs back into the app). */
  fetch?: FetchLike;
  /** Run no executor in this process (e.g. only remote workers). */
  noExecutor?: boolean;
  sweepEveryMs?: number;
  /** Test seam: how a video_url is checked and fetched (a local server, shorter caps). */
  videoFetch?: VideoFetchSeam;
}

/** The restore feature: its operations, queue, in-process executor and retention sweeper. */
export function restoreFeature(opts: RestoreFeatureOptions = {}): FeatureFactory {
  return (p) =>
    kindFeature(restoreKind, p, {
      // ALLOW_LOOPBACK_URLS (development) lets a video_url on this machine through the check.
      operations: restoreOperations({
        ...p,
        videoFetch: { allowLoopback: p.config.allowLoopbackUrls, ...opts.videoFetch },
      }),
      executors: opts.noExecutor
        ? []
        : [
            restoreExecutorFromConfig(p.config, {
              fetch: opts.fetch,
              videoFetch: opts.videoFetch,
            }),
          ],
      sweepEveryMs: opts.sweepEveryMs,
    });
}

/** The restore kind. */
/** The outbox of card refunds for restores paid by checkout (services/tables.ts). */
const CARD_REFUND_OUTBOX = "restore_card_refunds";

export const restoreKind = defineJobKind({
  definition: restoreJobs,
  idPrefix: "rj",
  otherTables: [CARD_REFUND_OUTBOX],
  plural: "restores",
  // The checkout operations move a restore too; the payments feature serves them.
  operations: [...RESTORE_OPERATIONS, ...RESTORE_CHECKOUT_OPERATIONS],
  roles: {
    get: c.getRestore,
    follow: c.followRestore,
    list: c.listRestores,
    cancel: c.cancelRestore,
    prices: c.getRestorePrices,
    pictures: getRestorePictures,
  },
  // Paid per job by card: the payments feature sells the checkout and serves its operations.
  checkout: {
    hooks: {
      getJobForCheckout,
      markCheckoutPaid,
      cardRefundTables: { jobs: restoreJobs.table, outbox: CARD_REFUND_OUTBOX },
    },
    operations: restoreCheckoutOperations,
  },
  instructions: RESTORE_INSTRUCTIONS,
  ledgerText: restoreLedgerText,
  executor: (config, seams) => restoreExecutorFromConfig(config, seams),
  feature: () => restoreFeature(),
  view: (p) => (row) => jobView(p, row),
});

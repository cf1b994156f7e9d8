/**
 * The echo kind, declared once: a test-only kind that proves a kind is one folder. A caller
 * creates an echo (7 cents), PUTs a small text, starts it; a worker reads the text and reports
 * it back upper-cased. Registered only by the tests' own registry line (`[...JOB_KINDS,
 * echoKind]`), it is served by REST, MCP (its tools, cancel_job, get_prices, tasks), the
 * console, the worker API, metrics and the generated client without an edit anywhere else.
 */
import type { FeatureFactory } from "../../../src/feature.js";
import { defineJobKind, type ExecutorSeams, kindFeature } from "../../../src/kinds/kind.js";
import * as c from "./api/contracts.js";
import { createEchoExecutor } from "./executor/executor.js";
import { ECHO_OPERATIONS, echoOperations } from "./operations.js";
import { echoJobs } from "./services/definition.js";
import { echoView } from "./services/jobs.js";
import type { EchoRow } from "./services/table.js";

/** Echo's feature: its operations, queue, in-process executor and retention sweeper. */
export function echoFeature(opts: ExecutorSeams & { noExecutor?: boolean } = {}): FeatureFactory {
  return (p) =>
    kindFeature(echoKind, p, {
      operations: echoOperations(p),
      executors: opts.noExecutor ? [] : [createEchoExecutor(opts.fetch)],
    });
}

/** The echo kind: what a real kind's kind.ts declares. */
export const echoKind = defineJobKind({
  definition: echoJobs,
  idPrefix: "echo",
  plural: "echoes",
  operations: ECHO_OPERATIONS,
  roles: {
    get: c.getEcho,
    list: c.listEchoes,
    cancel: c.cancelEcho,
    prices: c.getEchoPrices,
  },
  instructions:
    "Echo (a text said back): make_echo (7 cents) → PUT the text to upload_url → start_echo → get_echo with wait_seconds until done → result.",
  executor: (_config, seams) => createEchoExecutor(seams?.fetch),
  feature: () => echoFeature(),
  view: (p) => (row: EchoRow) => echoView(p, row),
});

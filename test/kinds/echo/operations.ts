/** Echo's operations: each maps its input onto one of its services. */
import { implement, type Operation } from "../../../src/api/operation.js";
import { waitOptions } from "../../../src/operations/wait.js";
import * as c from "./api/contracts.js";
import { ECHO_MAX_BYTES, ECHO_PRICE_CENTS } from "./rules/transitions.js";
import {
  cancelEcho,
  createEcho,
  type EchoDeps,
  getEcho,
  listEchoes,
  startEcho,
} from "./services/jobs.js";

const prices = implement(c.getEchoPrices, async () => ({
  price_cents: ECHO_PRICE_CENTS,
  max_text_bytes: ECHO_MAX_BYTES,
}));
const create = implement(c.createEcho, (d: EchoDeps, a, ctx) => createEcho(d, ctx.principal, a));
const list = implement(c.listEchoes, (d: EchoDeps, a, ctx) => listEchoes(d, ctx.principal, a));
const read = implement(c.getEcho, (d: EchoDeps, a, ctx) =>
  getEcho(d, ctx.principal, a.job_id, waitOptions(a, ctx)),
);
const start = implement(c.startEcho, (d: EchoDeps, a, ctx) =>
  startEcho(d, ctx.principal, a.job_id),
);
const cancel = implement(c.cancelEcho, (d: EchoDeps, a, ctx) =>
  cancelEcho(d, ctx.principal, a.job_id),
);

/** Echo's operations, not yet bound to its services. */
export const ECHO_OPERATIONS = [prices, create, list, read, start, cancel];

/** Echo's operations, bound. */
export function echoOperations(deps: EchoDeps): Operation[] {
  return ECHO_OPERATIONS.map((bind) => bind(deps));
}

/** The echo kind's operations, as contracts: prices, create, list, read, start, cancel. */
import { z } from "@hono/zod-openapi";
import { defineContract, READ_ONLY } from "../../../../src/api/operation.js";
import { JobIdField, pageQuery, UntilField, WaitField } from "../../../../src/api/schemas.js";
import { ECHO_LIST_MAX } from "../rules/transitions.js";
import {
  CreatedEcho,
  CreateEchoBody,
  EchoAnswer,
  EchoJob,
  EchoPrices,
  echoSpend,
} from "./schemas.js";

const TAGS = ["Echo"] as const;
const JOB = { job_id: JobIdField("echo_4f8HkQ2n9LrT1xZcV6bYpA", 120) };
const BY_ID = { job_id: "id" } as const;
/** A change that cannot be undone, made again unchanged. */
const IDEMPOTENT = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Echo's price and limits; no key needed. */
export const getEchoPrices = defineContract({
  id: "getEchoPrices",
  auth: "none",
  input: z.object({}).strict(),
  output: EchoPrices,
  errors: [],
  rest: {
    method: "get",
    path: "/echo/prices",
    tags: TAGS,
    summary: "Echo price and limits",
    description: "What an echo costs and the largest text it takes.",
  },
});

/** Create an echo: charged now, refunded if it fails or is cancelled. */
export const createEcho = defineContract({
  id: "createEcho",
  auth: "key",
  input: CreateEchoBody,
  output: CreatedEcho,
  errors: ["needs_topup", "over_limit", "wallet_paused", "price_above_max", "agreement_required"],
  policies: { spends: true, rate: "spend" },
  price: echoSpend,
  rest: {
    method: "post",
    path: "/echo/jobs",
    tags: TAGS,
    summary: "Create an echo",
    description: "Charges the price, then PUT the text to upload_url and start the job.",
  },
  mcp: {
    name: "make_echo",
    followedBy: "get_echo",
    title: "Echo a text",
    description: "Costs 7 cents, charged now. PUT the text to upload_url, then start_echo.",
    annotations: { ...IDEMPOTENT, idempotentHint: false },
  },
});

/** This key's echoes, newest first. */
export const listEchoes = defineContract({
  id: "listEchoes",
  auth: "key",
  input: pageQuery({ min: 1, max: ECHO_LIST_MAX, example: ECHO_LIST_MAX }),
  output: z.object({ jobs: z.array(EchoJob), next_cursor: z.string().nullable() }),
  errors: [],
  rest: {
    method: "get",
    path: "/echo/jobs",
    tags: TAGS,
    summary: "List echoes",
    description: "This key's echoes, newest first.",
  },
  mcp: {
    name: "list_echoes",
    title: "List this key's echoes",
    description: "Free. This key's echoes, newest first; next_cursor pages back.",
    annotations: READ_ONLY,
  },
});

/** One echo, optionally held until its status changes. */
export const getEcho = defineContract({
  id: "getEcho",
  auth: "key",
  input: z.object({ ...JOB, wait_seconds: WaitField, until: UntilField }).strict(),
  output: EchoAnswer,
  errors: ["not_found"],
  rest: {
    method: "get",
    path: "/echo/jobs/{id}",
    names: { ...BY_ID, wait_seconds: "wait" },
    tags: TAGS,
    summary: "Read an echo",
    description: "Status, and the result once done.",
  },
  mcp: {
    name: "get_echo",
    title: "Follow an echo",
    description: "Free. The echo: status, progress, queue ETA and the result once done.",
    annotations: READ_ONLY,
  },
});

/** Start an echo once its text is uploaded. */
export const startEcho = defineContract({
  id: "startEcho",
  auth: "key",
  input: z.object(JOB).strict(),
  output: EchoAnswer,
  errors: ["not_found", "not_uploaded", "wrong_state"],
  examples: {
    not_uploaded: "The text has not been uploaded yet: PUT it to upload_url.",
    wrong_state: "The echo is cancelled and cannot be started.",
  },
  rest: {
    method: "post",
    path: "/echo/jobs/{id}/start",
    names: BY_ID,
    tags: TAGS,
    summary: "Start an echo",
    description: "Queues the echo once its text arrived; a started echo is returned unchanged.",
  },
  mcp: {
    name: "start_echo",
    followedBy: "get_echo",
    title: "Start an echo",
    description: "No further charge. Starts the echo once the text is uploaded.",
    annotations: IDEMPOTENT,
  },
});

/** Cancel an echo that has not started; refunded at once. */
export const cancelEcho = defineContract({
  id: "cancelEcho",
  auth: "key",
  input: z.object(JOB).strict(),
  output: EchoAnswer,
  errors: ["not_found", "wrong_state"],
  examples: {
    wrong_state: "The echo is queued; only one that has not started can be cancelled.",
  },
  rest: {
    method: "post",
    path: "/echo/jobs/{id}/cancel",
    names: BY_ID,
    tags: TAGS,
    summary: "Cancel an echo",
    description: "Before start only; the price goes back at once.",
  },
});

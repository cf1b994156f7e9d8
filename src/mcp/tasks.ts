/**
 * MCP Tasks for the calls that start a job (`create_restore`, `start_restore`, `make_clip`,
 * `start_clip`), in both protocol eras: the 2025-11-25 task methods (`params.task` on the call,
 * `tasks/get`, `tasks/result`, `tasks/cancel`) and the 2026-07-28 Tasks extension
 * (`io.modelcontextprotocol/tasks` declared in the request's client capabilities; the answer is
 * `resultType: "task"`; `tasks/get` inlines the result; `tasks/cancel`).
 *
 * The job is the task. Its id is a kinora token (src/signing.ts) naming the job, the tool that
 * made the task and the calling key, so any API node answers any task from the job row alone,
 * and a task id is worthless to another key (refused as not found before anything is read; the
 * job is then read through the tool that follows it, which refuses another key's job too).
 * Status comes from the job: waiting for an upload, payment, the queue or a worker is
 * `working`; `done` is `completed` with the tool's own answer (its output schema holds) with the
 * job in its final state; `cancelled` is `cancelled`; any other end (failed, refused, refunded,
 * expired) is a tool error result — `completed` with `isError` on 2026-07-28, `failed` on
 * 2025-11-25 as each revision says. Cancelling runs `cancel_job`: a job not yet started is
 * cancelled and refunded, and so is a running restore (its workers stop); a running clip cannot
 * be, and the refusal says so.
 *
 * The SDK's server validates a tools/call result as a CallToolResult and has no task store, so
 * these requests are answered by ./task-requests.ts, in JSON, with the SDK's wire format
 * (./handler.ts routes them); everything else about the call — reading arguments, the owner's agreement, the
 * operation runner — is the ordinary tool call (./call.ts).
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/server";
import type { Operation } from "../api/operation.js";
import { isRecord, type JsonRecord } from "../domain/records.js";
import { callTool } from "./call.js";
import { catalogue } from "./catalogue.js";
import type { McpCall, McpContext, McpEra } from "./context.js";
import { TASKS_EXTENSION } from "./task-tools.js";

export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const IMMEDIATE_RESPONSE_KEY = "io.modelcontextprotocol/model-immediate-response";

/** How long a task id stays good: results are deleted about 48 hours after a job ends. */
export const TASK_TTL_MS = 48 * 3600_000;
/** The polling interval suggested to clients (jobs report progress every few seconds). */
const POLL_INTERVAL_MS = 5_000;
/** How long one wait of tasks/result holds (the tool's own cap); it waits again until done. */
const RESULT_WAIT_SECONDS = 25;
const PURPOSE = "mcp-task";

/** The claims a task id carries. */
interface TaskClaims {
  /** The key the task belongs to. */
  k: string;
  /** The tool whose call made the task. */
  t: string;
  /** The job, or absent for a refused call (2025-11-25: a task that failed at once). */
  j?: string;
  /** The refusal's text (the error body as JSON), for a task without a job. */
  r?: string;
  /** The first answer's other fields its output schema requires (e.g. display_price). */
  s?: Record<string, unknown>;
  /** The first answer had `next` / `wallet`: the final answer has them too. */
  n?: boolean;
  w?: boolean;
  /** When the task was made (ms). */
  c: number;
}

type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A JSON object as read from a request. */
export type JsonObject = JsonRecord;

/** A JSON-RPC error to answer instead of a result. */
export class TaskRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const notFound = () => new TaskRpcError(-32602, "Failed to retrieve task: Task not found");

/** The tool that follows the job a call of `tool` starts; undefined: it never answers as a task. */
export function followToolOf(
  tools: ReadonlyMap<string, Operation>,
  tool: unknown,
): string | undefined {
  return typeof tool === "string" ? tools.get(tool)?.contract.mcp?.followedBy : undefined;
}

/** Whether this request's client takes a task for a call of `tool` in `era`. */
export function asksForTask(
  era: McpEra,
  tool: unknown,
  params: JsonObject,
  capabilities: JsonObject | undefined,
  tools: ReadonlyMap<string, Operation>,
): boolean {
  if (!followToolOf(tools, tool)) return false;
  if (era === "legacy") return isRecord(params.task);
  return declaresTasks(capabilities);
}

/** Whether 2026-07-28 client capabilities declare the Tasks extension. */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = isRecord(capabilities) ? capabilities.extensions : undefined;
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/** The body a tool result carries as text (our results are always one JSON text). */
function bodyOf(result: CallToolResult): JsonObject {
  const first = result.content[0];
  // cast: our tool results are always one JSON object as text
  return first?.type === "text" ? (JSON.parse(first.text) as JsonObject) : {};
}

function jobOf(body: JsonObject): JsonObject | undefined {
  return isRecord(body.job) ? body.job : undefined;
}

const WAITING: Record<string, string> = {
  pending_payment: "waiting for the owner to pay at checkout_url",
  awaiting_upload: "waiting for the file: PUT it to upload_url with upload_headers, then start",
  queued: "queued",
};

/** The task status and message of a job as the follow tool shows it. */
function statusOfJob(job: JsonObject, era: McpEra): { status: TaskStatus; message: string } {
  const status = String(job.status);
  // cast: `status in WAITING` was checked just before
  if (status in WAITING) return { status: "working", message: WAITING[status] as string };
  if (status === "processing") {
    const progress = typeof job.progress === "number" ? job.progress : 0;
    return { status: "working", message: `processing, ${Math.round(progress * 100)}% done` };
  }
  if (status === "done") return { status: "completed", message: "done" };
  if (status === "cancelled") return { status: "cancelled", message: "cancelled (refunded)" };
  const why = typeof job.error === "string" ? `: ${job.error}` : "";
  // 2025-11-25: a tool result with isError is a failed task; 2026-07-28: completed with it.
  return { status: era === "legacy" ? "failed" : "completed", message: `${status}${why}` };
}

function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** The task fields of each era (2025-11-25 `ttl`/`pollInterval`, 2026-07-28 `…Ms`). */
function taskFields(
  era: McpEra,
  taskId: string,
  status: TaskStatus,
  message: string,
  createdAt: string,
  updatedAt: string,
): JsonObject {
  const times = { createdAt, lastUpdatedAt: updatedAt };
  return era === "legacy"
    ? {
        taskId,
        status,
        statusMessage: message,
        ...times,
        ttl: TASK_TTL_MS,
        pollInterval: POLL_INTERVAL_MS,
      }
    : {
        taskId,
        status,
        statusMessage: message,
        ...times,
        ttlMs: TASK_TTL_MS,
        pollIntervalMs: POLL_INTERVAL_MS,
      };
}

function text(value: unknown, isError = false): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    ...(isError ? { isError: true } : {}),
  };
}

/** The fields of a first answer besides the job that the final answer keeps. */
function seedOf(body: JsonObject): Pick<TaskClaims, "s" | "n" | "w"> {
  const dropped = new Set([
    "job",
    "upload_url",
    "upload_headers",
    "upload_expires_at",
    "next",
    "wallet",
    "checkout_url",
  ]);
  const s = Object.fromEntries(Object.entries(body).filter(([key]) => !dropped.has(key)));
  return {
    ...(Object.keys(s).length ? { s } : {}),
    ...("next" in body ? { n: true } : {}),
    ...("wallet" in body ? { w: true } : {}),
  };
}

/** What a job-starting call answers when the client takes tasks. */
export interface TaskCallAnswer {
  result: CallToolResult | InputRequiredResult | JsonObject;
}

/** The task id (a token) of these claims. */
function mint(mcp: McpContext, claims: TaskClaims): string {
  return mcp.deps.signer.sign(PURPOSE, { ...claims }, claims.c + TASK_TTL_MS);
}

function claimsOf(mcp: McpContext, taskId: unknown, nowMs: number): TaskClaims {
  if (typeof taskId !== "string") throw notFound();
  const claims = mcp.deps.signer.verify<JsonObject>(PURPOSE, taskId, nowMs);
  // Another key's task is not found: its existence is not told either.
  if (!claims || claims.k !== mcp.principal.keyId || typeof claims.t !== "string") {
    throw notFound();
  }
  // cast: the signer verified them (only this module signs the purpose), and k and t were checked
  return claims as unknown as TaskClaims;
}

function op(mcp: McpContext, tool: string): Operation {
  const found = catalogue(mcp.operations).byName.get(tool);
  if (!found) throw new TaskRpcError(-32603, `the ${tool} tool is not served here`);
  return found;
}

/** A call of another tool on the caller's behalf (follow, cancel, balance). */
function internalCall(era: McpEra): McpCall {
  return {
    era,
    protocolVersion: undefined,
    clientCapabilities: undefined,
    progressToken: undefined,
    notify: undefined,
    inputResponses: undefined,
    requestState: undefined,
    meta: undefined,
  };
}

async function runTool(
  mcp: McpContext,
  era: McpEra,
  tool: string,
  args: JsonObject,
): Promise<CallToolResult> {
  const result = await callTool(op(mcp, tool), mcp, args, internalCall(era));
  if (isInputRequiredResult(result)) throw new TaskRpcError(-32603, `${tool} asked for input`);
  return result;
}

/**
 * Runs a job-starting tool call for a client that takes tasks: the call as usual, then its
 * answer as a task when there is a job that runs on its own (or, on 2025-11-25, whenever the
 * client asked: that revision requires a task for an accepted task-augmented call).
 */
export async function callAsTask(
  mcp: McpContext,
  era: McpEra,
  params: JsonObject,
  call: McpCall,
): Promise<JsonObject> {
  // cast: the task path is taken only for a tools/call whose name named a tool
  const tool = params.name as string;
  const result = await callTool(op(mcp, tool), mcp, params.arguments, call);
  // cast: an input-required result is a JSON object the client reads as it is
  if (isInputRequiredResult(result)) return result as unknown as JsonObject;
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const base = { k: mcp.principal.keyId, t: tool, c: nowMs };
  if (result.isError) {
    // cast: a CallToolResult is a JSON object
    if (era === "modern") return result as JsonObject;
    // 2025-11-25 wants a task for an accepted call: this one failed at once, its refusal kept.
    // cast: our tool results are always one text content
    const taskId = mint(mcp, { ...base, r: (result.content[0] as { text: string }).text });
    const refused = bodyOf(result);
    const message = typeof refused.detail === "string" ? refused.detail : "refused";
    return { task: taskFields(era, taskId, "failed", message, now, now) };
  }
  const body = bodyOf(result);
  const job = jobOf(body);
  // cast: a CallToolResult is a JSON object
  if (!job || typeof job.id !== "string") return result as JsonObject;
  const { status, message } = statusOfJob(job, era);
  const waitsForCaller = job.status === "awaiting_upload" || job.status === "pending_payment";
  // 2026-07-28: the server decides; a job that waits for the caller is answered as is.
  // cast: a CallToolResult is a JSON object
  if (era === "modern" && waitsForCaller) return result as JsonObject;
  const taskId = mint(mcp, { ...base, j: job.id, ...seedOf(body) });
  const created = String(job.created_at ?? now);
  const updated = String(job.updated_at ?? now);
  const fields = taskFields(era, taskId, status, message, created, updated);
  if (era === "modern") return { resultType: "task", ...fields };
  // The model still needs the first answer (upload_url, next) while the task runs.
  // cast: our tool results are always one text content
  const first = (result.content[0] as { text: string }).text;
  return { task: fields, _meta: { [IMMEDIATE_RESPONSE_KEY]: first } };
}

/** The task's state: its fields and, once it ended, the final tool result. */
async function readTask(
  mcp: McpContext,
  era: McpEra,
  taskId: string,
  claims: TaskClaims,
  waitSeconds = 0,
): Promise<{ fields: JsonObject; status: TaskStatus; final?: CallToolResult }> {
  const created = new Date(claims.c).toISOString();
  if (claims.r !== undefined || claims.j === undefined) {
    const final: CallToolResult = {
      content: [{ type: "text", text: claims.r ?? "{}" }],
      isError: true,
    };
    const status: TaskStatus = era === "legacy" ? "failed" : "completed";
    return { fields: taskFields(era, taskId, status, "refused", created, created), status, final };
  }
  const follow = followToolOf(catalogue(mcp.operations).byName, claims.t);
  // A task is minted only for a tool with a follow tool; a server that lost it cannot read it.
  if (!follow) throw notFound();
  const args: JsonObject = {
    job_id: claims.j,
    ...(waitSeconds ? { wait_seconds: waitSeconds } : {}),
  };
  const read = await runTool(mcp, era, follow, args);
  // The job is gone (deleted after retention) or not this key's: the task is not found.
  if (read.isError) throw notFound();
  const body = bodyOf(read);
  const job = jobOf(body) ?? {};
  const { status, message } = statusOfJob(job, era);
  const fields = taskFields(
    era,
    taskId,
    status,
    message,
    String(job.created_at ?? created),
    String(job.updated_at ?? created),
  );
  if (!isTerminal(status) || status === "cancelled") return { fields, status };
  if (job.status !== "done") return { fields, status, final: text(body, true) };
  const answer: JsonObject = { ...claims.s, job };
  if (claims.n) answer.next = `Done: follow the job with ${follow} for a fresh link.`;
  if (claims.w) {
    const balance = await runTool(mcp, era, "get_balance", {});
    if (!balance.isError) answer.wallet = bodyOf(balance).wallet;
  }
  const final: CallToolResult = { ...text(answer), structuredContent: answer };
  return { fields, status, final };
}

/** `tasks/get`: the task now (2026-07-28: with its result or error inlined once it ended). */
export async function getTask(mcp: McpContext, era: McpEra, params: JsonObject) {
  const claims = claimsOf(mcp, params.taskId, Date.now());
  // cast: claimsOf just above refused a taskId that is not a string
  const { fields, final } = await readTask(mcp, era, params.taskId as string, claims);
  // A 2026-07-28 result inlined in the task carries its own resultType, as on the wire.
  if (era === "modern" && final) return { ...fields, result: { resultType: "complete", ...final } };
  return fields;
}

/** `tasks/result` (2025-11-25): the final tool result, waiting while the job runs. */
export async function taskResult(mcp: McpContext, era: McpEra, params: JsonObject) {
  const taskId = params.taskId;
  const claims = claimsOf(mcp, taskId, Date.now());
  for (;;) {
    // cast: claimsOf just above refused a taskId that is not a string
    const read = await readTask(mcp, era, taskId as string, claims, RESULT_WAIT_SECONDS);
    if (read.status === "cancelled") {
      throw new TaskRpcError(-32602, "The task was cancelled: the job was cancelled and refunded.");
    }
    if (read.final) {
      return { ...read.final, _meta: { [RELATED_TASK_META_KEY]: { taskId } } };
    }
    if (mcp.signal.aborted) throw new TaskRpcError(-32603, "The request was abandoned.");
  }
}

/** `tasks/cancel`: cancels (and refunds) a job not yet started; a running one says why not. */
export async function cancelTask(mcp: McpContext, era: McpEra, params: JsonObject) {
  // cast: claimsOf just above refused a taskId that is not a string
  const taskId = params.taskId as string;
  const claims = claimsOf(mcp, taskId, Date.now());
  const now = await readTask(mcp, era, taskId, claims);
  if (isTerminal(now.status)) {
    throw new TaskRpcError(-32602, `Cannot cancel task: already in terminal status ${now.status}`);
  }
  const cancelled = await runTool(mcp, era, "cancel_job", { job_id: claims.j });
  if (cancelled.isError) {
    const refusal = bodyOf(cancelled);
    throw new TaskRpcError(-32602, `Cannot cancel task: ${String(refusal.detail)}`, refusal);
  }
  const after = await readTask(mcp, era, taskId, claims);
  return era === "legacy" ? after.fields : {};
}

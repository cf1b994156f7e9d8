/**
 * The JSON-RPC side of MCP Tasks: which requests are task requests (./handler.ts asks before
 * the SDK sees them), the McpCall a task-path tools/call runs with, and the answers written in
 * the SDK's wire format. What a task is and how it follows its job is ./tasks.ts.
 */
import { SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import type { Operation } from "../api/operation.js";
import { isRecord } from "../domain/records.js";
import type { McpCall, McpContext, McpEra } from "./context.js";
import { verifyRequestState } from "./request-state.js";
import { SERVER_INFO } from "./server.js";
import { TASKS_EXTENSION } from "./task-tools.js";
import {
  asksForTask,
  CLIENT_CAPABILITIES_KEY,
  callAsTask,
  cancelTask,
  declaresTasks,
  getTask,
  type JsonObject,
  PROTOCOL_VERSION_KEY,
  TaskRpcError,
  taskResult,
} from "./tasks.js";

/** The JSON-RPC methods of tasks, by name. */
export const TASK_METHODS = {
  "tasks/get": getTask,
  "tasks/result": taskResult,
  "tasks/cancel": cancelTask,
} as const;

/** The McpCall of a task-path tools/call (what ./server.ts builds from the SDK's context). */
export function taskPathCall(
  mcp: McpContext,
  era: McpEra,
  params: JsonObject,
  versionHeader: string | undefined,
): McpCall {
  const meta = isRecord(params._meta) ? params._meta : {};
  const rest: JsonObject = {};
  for (const key in meta) if (!key.startsWith("io.modelcontextprotocol/")) rest[key] = meta[key];
  const state = params.requestState;
  let requestState: JsonObject | undefined;
  if (typeof state === "string") {
    try {
      requestState = verifyRequestState(mcp.deps.signer, mcp.principal.keyId, state, Date.now());
    } catch {
      // The SDK's own answer to a bad state.
      throw new TaskRpcError(-32602, "Invalid or expired requestState");
    }
  }
  return {
    era,
    // cast: a modern request's envelope always names its protocol version
    protocolVersion: era === "modern" ? (meta[PROTOCOL_VERSION_KEY] as string) : versionHeader,
    // cast: the client's declared capabilities, read leniently by each user
    clientCapabilities: (era === "modern" ? meta[CLIENT_CAPABILITIES_KEY] : undefined) as
      | McpCall["clientCapabilities"]
      | undefined,
    progressToken: undefined,
    notify: undefined,
    inputResponses: isRecord(params.inputResponses) ? params.inputResponses : undefined,
    requestState,
    meta: Object.keys(rest).length ? rest : undefined,
  };
}

/** A JSON-RPC answer written as the SDK writes it (2026-07-28 stamps resultType and server). */
export function taskAnswer(era: McpEra, id: unknown, outcome: JsonObject | TaskRpcError) {
  if (outcome instanceof TaskRpcError) {
    const error = {
      code: outcome.code,
      message: outcome.message,
      ...(outcome.data !== undefined ? { data: outcome.data } : {}),
    };
    return { status: 200 as const, json: JSON.stringify({ jsonrpc: "2.0", id, error }) };
  }
  const result =
    era === "modern"
      ? {
          resultType: "complete",
          ...outcome,
          // cast: a tool result's _meta is a JSON object when present (spread of undefined is empty)
          _meta: { ...(outcome._meta as JsonObject), [SERVER_INFO_META_KEY]: SERVER_INFO },
        }
      : outcome;
  return { status: 200 as const, json: JSON.stringify({ result, jsonrpc: "2.0", id }) };
}

/**
 * Whether a parsed message is a task request this module answers, and how; `tools` are the
 * served tools by name (a call becomes a task only for a tool that has a follow tool).
 */
export function taskRequest(
  era: McpEra,
  message: unknown,
  tools: ReadonlyMap<string, Operation>,
): { id: string | number; method: string; params: JsonObject } | undefined {
  if (!isRecord(message) || message.jsonrpc !== "2.0") return;
  const { id, method, params } = message;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return;
  if (typeof method !== "string" || !isRecord(params)) return;
  const meta = isRecord(params._meta) ? params._meta : undefined;
  // cast: the client's declared capabilities, read leniently by asksForTask
  const capabilities = meta?.[CLIENT_CAPABILITIES_KEY] as JsonObject | undefined;
  const isTaskMethod =
    method === "tasks/get" ||
    method === "tasks/cancel" ||
    (era === "legacy" && method === "tasks/result");
  if (
    isTaskMethod ||
    (method === "tools/call" && asksForTask(era, params.name, params, capabilities, tools))
  ) {
    // cast: checked just above: a string or a safe integer
    return { id: id as string | number, method, params };
  }
}

/** Answers a request taskRequest accepted, in JSON. */
export async function answerTaskRequest(
  era: McpEra,
  request: { id: string | number; method: string; params: JsonObject },
  mcp: McpContext,
  versionHeader: string | undefined,
) {
  const { id, method, params } = request;
  try {
    if (method === "tools/call") {
      const call = taskPathCall(mcp, era, params, versionHeader);
      return taskAnswer(era, id, await callAsTask(mcp, era, params, call));
    }
    if (era === "modern") {
      const meta = isRecord(params._meta) ? params._meta : undefined;
      if (!declaresTasks(meta?.[CLIENT_CAPABILITIES_KEY])) {
        throw new TaskRpcError(-32021, "Missing required client capability", {
          requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
        });
      }
    }
    // cast: only a task method reaches here (taskRequest let through tools/call and the tasks/* it names)
    const handler = TASK_METHODS[method as keyof typeof TASK_METHODS];
    // cast: every task method answers a JSON object
    return taskAnswer(era, id, (await handler(mcp, era, params)) as JsonObject);
  } catch (err) {
    if (err instanceof TaskRpcError) return taskAnswer(era, id, err);
    mcp.deps.log.error("mcp task request failed", { err, method });
    return taskAnswer(era, id, new TaskRpcError(-32603, "Internal error"));
  }
}

/**
 * Which tools may answer as an MCP task and what the server declares for tasks (./tasks.ts
 * answers them): kept apart so the catalogue and the server read them without importing the
 * task handlers.
 */

/** The 2026-07-28 Tasks extension's identifier (client and server capabilities). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The tools whose call may become a task, and the tool that follows the job they start. */
export const TASK_TOOLS: Readonly<Record<string, string>> = {
  create_restore: "get_restore",
  start_restore: "get_restore",
  make_clip: "get_clip",
  start_clip: "get_clip",
};

/** The 2025-11-25 `tasks` capability declared at `initialize`: tool calls, and cancel. */
export const LEGACY_TASKS_CAPABILITY = { cancel: {}, requests: { tools: { call: {} } } };

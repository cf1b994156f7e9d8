/**
 * What the server declares for MCP tasks (./tasks.ts answers them): kept apart so the server
 * reads it without importing the task handlers. Which tools may answer as a task is each
 * contract's own word (`mcp.followedBy`: the tool that follows the job the call starts).
 */

/** The 2026-07-28 Tasks extension's identifier (client and server capabilities). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The 2025-11-25 `tasks` capability declared at `initialize`: tool calls, and cancel. */
export const LEGACY_TASKS_CAPABILITY = { cancel: {}, requests: { tools: { call: {} } } };

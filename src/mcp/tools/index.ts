/** The 13 tools, in the order assistants see them. */
import type { ToolDefinition } from "../tool.js";
import { getClipTool, listClipsTool, makeClip, startClipTool } from "./clips.js";
import { cancelJob } from "./jobs.js";
import { getPrices, quoteRestoreTool } from "./prices.js";
import { createRestore, getRestore, startRestore } from "./restore.js";
import { createTopUpLink, getBalance, topUpWithUsdc } from "./wallet.js";

export const TOOLS: readonly ToolDefinition[] = [
  getPrices,
  quoteRestoreTool,
  createRestore,
  startRestore,
  getRestore,
  makeClip,
  startClipTool,
  getClipTool,
  listClipsTool,
  cancelJob,
  getBalance,
  createTopUpLink,
  topUpWithUsdc,
];

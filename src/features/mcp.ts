/**
 * The MCP server as a Feature: /mcp offers every feature's operations that have a tool — the
 * same operations, bound to the same services, that the REST routes serve — plus the
 * assistant-only combinations over the job kinds the server serves (every kind's prices at
 * once, one cancel for a job of any kind).
 */

import type { FeatureFactory } from "../feature.js";
import { allowedHostnames, allowedOrigins } from "../mcp/origin.js";
import { assistantOperations } from "../operations/assistant.js";
import { registerMcpRoute } from "./mcp-route.js";

/** The MCP server at /mcp, offering every feature's operations that have a tool. */
export function mcpFeature(): FeatureFactory {
  return (platform) => ({
    name: "mcp",
    operationsOver: (kinds) => assistantOperations(kinds, platform),
    routes: (app, ctx) =>
      registerMcpRoute(
        app,
        { deps: platform, operations: ctx.operations, kinds: ctx.kinds },
        {
          allowedOrigins: allowedOrigins(platform.publicUrl, platform.config.mcpAllowedOrigins),
          allowedHosts: allowedHostnames(platform.publicUrl),
        },
      ),
  });
}

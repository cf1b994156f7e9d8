/**
 * The MCP server as a Feature: /mcp offers every feature's operations that have a tool — the
 * same operations, bound to the same services, that the REST routes serve — plus the
 * assistant-only combinations (every price at once, one cancel for either kind of job).
 */

import type { FeatureFactory } from "../feature.js";
import { type ClipsFeatureOptions, clipDeps } from "../kinds/clips/kind.js";
import { allowedHostnames, allowedOrigins } from "../mcp/origin.js";
import { assistantOperations } from "../operations/assistant.js";
import { registerMcpRoute } from "./mcp-route.js";

interface McpFeatureOptions {
  /** Used only when no earlier feature built the clip services (features/shared-services.ts). */
  clips?: ClipsFeatureOptions;
}

/** The MCP server at /mcp, offering every feature's operations that have a tool. */
export function mcpFeature(opts: McpFeatureOptions = {}): FeatureFactory {
  return (platform) => ({
    name: "mcp",
    operations: assistantOperations({ restore: platform, clips: clipDeps(platform, opts.clips) }),
    routes: (app, ctx) =>
      registerMcpRoute(
        app,
        { deps: platform, operations: ctx.operations },
        {
          allowedOrigins: allowedOrigins(platform.publicUrl, platform.config.mcpAllowedOrigins),
          allowedHosts: allowedHostnames(platform.publicUrl),
        },
      ),
  });
}

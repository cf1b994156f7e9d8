/**
 * The MCP server as a Feature: POST /mcp over the same services the REST routes use — built
 * here with the same builders the restore, clips and payments features use.
 */

import type { FeatureFactory } from "../platform.js";
import { type ClipsFeatureOptions, clipDeps } from "./clips.js";
import { registerMcpRoute } from "./mcp-route.js";
import { createPaymentsDeps, type PaymentsFeatureOptions } from "./payments.js";

export interface McpFeatureOptions {
  clips?: ClipsFeatureOptions;
  payments?: PaymentsFeatureOptions;
}

export function mcpFeature(opts: McpFeatureOptions = {}): FeatureFactory {
  return async (platform) => {
    const services = {
      platform,
      clips: clipDeps(platform, opts.clips),
      payments: (await createPaymentsDeps(platform, opts.payments)).deps,
    };
    return { name: "mcp", routes: (app) => registerMcpRoute(app, services) };
  };
}

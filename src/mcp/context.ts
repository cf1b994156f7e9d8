/**
 * What the MCP surface runs with: every operation that has a tool, bound to its services (the
 * same operations the REST routes serve), and the platform pieces the shared policies use.
 */
import type { Operation } from "../api/operation.js";
import type { Config } from "../config.js";
import type { Principal } from "../services/auth.js";
import type { CoreDeps } from "../services/deps.js";
import type { RateDeps } from "../services/rate-buckets.js";

export type McpDeps = CoreDeps &
  RateDeps & {
    config: Pick<Config, "rateLimits" | "idempotencyInFlightMs">;
    publicUrl: string;
  };

export interface McpServices {
  deps: McpDeps;
  /** The operations with an MCP binding, in the order tools/list shows them. */
  operations: readonly Operation[];
}

/** One MCP request's caller and its services. */
export interface McpContext extends McpServices {
  /** Always an agent key (or a connected app's token): assistants spend under a limit. */
  principal: Principal & { kind: "agent" };
  /** The secret the caller sent; idempotency records are sealed for it. Never stored. */
  credential: string;
  requestId: string;
  signal: AbortSignal;
}

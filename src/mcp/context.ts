/**
 * What every MCP tool runs with: the services' dependencies (the same ones the REST routes
 * use), the caller's principal and credential, and the request's id for error bodies.
 */

import type { Principal } from "../services/auth.js";
import type { ClipDeps } from "../services/clips/deps.js";
import type { PaymentsDeps } from "../services/payments/deps.js";
import type { Platform } from "../services/platform.js";

export interface McpServices {
  platform: Platform;
  clips: ClipDeps;
  payments: PaymentsDeps;
}

export interface McpContext extends McpServices {
  /** Always an agent key (or a connected app's token): assistants spend under a limit. */
  principal: Principal & { kind: "agent" };
  /** The secret the caller sent; idempotency records are sealed for it. Never stored. */
  credential: string;
  requestId: string;
  signal: AbortSignal;
}

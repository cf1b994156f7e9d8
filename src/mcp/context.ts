/**
 * What the MCP surface runs with: every operation that has a tool, bound to its services (the
 * same operations the REST routes serve), the platform pieces the shared policies use — and,
 * per request, who calls (McpContext) and what the one JSON-RPC request carries besides its
 * arguments (McpCall: the protocol era, the client's declared capabilities, progress, the
 * multi-round answers).
 */
import type { ClientCapabilities, ServerNotification } from "@modelcontextprotocol/server";
import type { Operation } from "../api/operation.js";
import type { Config } from "../config.js";
import type { KindSurface } from "../operations/kinds.js";
import type { Principal } from "../services/auth.js";
import type { CoreDeps } from "../services/deps.js";
import type { RateDeps } from "../services/rate-buckets.js";
import type { Signer } from "../signing.js";

export type McpDeps = CoreDeps &
  RateDeps & {
    config: Pick<Config, "rateLimits" | "idempotencyInFlightMs" | "purchaseApprovalTtlMs">;
    publicUrl: string;
    /** Signs and checks the multi-round `requestState` (./request-state.ts). */
    signer: Signer;
  };

export interface McpServices {
  deps: McpDeps;
  /** The operations with an MCP binding, in the order tools/list shows them. */
  operations: readonly Operation[];
  /** The job kinds the server serves (their flows are part of the instructions). */
  kinds: readonly KindSurface[];
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

/**
 * The two protocol eras served on /mcp: `legacy` is the 2025 revisions (2024-11-05 to
 * 2025-11-25: `initialize`, then plain JSON-RPC), `modern` is 2026-07-28 (a per-request
 * `_meta` envelope, `server/discover`, routing headers, no handshake).
 */
export type McpEra = "legacy" | "modern";

/** A notification sent on this request's own response stream (progress, …). */
export type McpNotify = (notification: ServerNotification) => Promise<void>;

/**
 * Everything one JSON-RPC request carries besides the tool arguments: the seam progress,
 * tasks and elicitation build on. Filled the same way on every path that serves a call.
 */
export interface McpCall {
  era: McpEra;
  /**
   * The revision the request speaks: the envelope's on the modern era; on the legacy era the
   * MCP-Protocol-Version header (absent before 2025-06-18 and on `initialize`).
   */
  protocolVersion: string | undefined;
  /**
   * What the client declared it can do (elicitation, the tasks extension, …): the envelope's
   * `clientCapabilities` on the modern era. Unknown (undefined) on the legacy era, whose
   * `initialize` was answered by another stateless instance, maybe another node.
   */
  clientCapabilities: ClientCapabilities | undefined;
  /** `_meta.progressToken`: the client asks for progress notifications on this request. */
  progressToken: string | number | undefined;
  /**
   * Sends a notification related to this request; present only when the answer can be an SSE
   * stream the client accepts (a JSON answer has nowhere to put one).
   */
  notify: McpNotify | undefined;
  /** The answers of a multi-round retry (2026-07-28 `inputResponses`), untrusted input. */
  inputResponses: Record<string, unknown> | undefined;
  /**
   * The claims of the `requestState` this round echoed back, already verified as ours, for
   * this key and unexpired (./request-state.ts); a forged one never reaches a handler.
   */
  requestState: Record<string, unknown> | undefined;
  /** The call's `_meta` without the protocol's own envelope keys (`x402/payment`, …). */
  meta: Record<string, unknown> | undefined;
}

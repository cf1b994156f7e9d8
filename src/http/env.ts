/** The Hono environment every route shares: request-scoped variables set by middleware. */
import type { Principal } from "../services/auth.js";
import type { Decision } from "../services/rate-limit.js";

/** What every request carries through Hono: its id, logger and caller. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** Who called, once an operation authenticated the key (for the access log). */
    principal: Principal | undefined;
    /** This request's count against its key's bucket (key-rate.ts), for the RateLimit headers. */
    rateDecision: Decision | undefined;
  };
}

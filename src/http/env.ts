/** The Hono environment every route shares: request-scoped variables set by middleware. */
import type { Principal } from "../services/auth.js";

export interface AppEnv {
  Variables: {
    requestId: string;
    principal: Principal;
    /** Set by optionalKey() when a key was sent; undefined otherwise. */
    maybePrincipal: Principal | undefined;
  };
}

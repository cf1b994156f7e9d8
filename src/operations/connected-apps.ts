/**
 * The consent page's Allow: the authorization request checked again (the page's copy is only
 * what it showed), the app's agent key made with the owner's limit, and its one-time code.
 */
import * as c from "../api/contracts/connected-apps.js";
import { implement, type Operation } from "../api/operation.js";
import { invalidRequest } from "../domain/errors.js";
import {
  parseAuthorizeRequest,
  RedirectableError,
  redirectHost,
  redirectWith,
  UntrustedRequestError,
} from "../oauth/authorize.js";
import type { ClientDeps } from "../oauth/clients.js";
import { createCode } from "../oauth/tokens.js";
import { createConnectedApp } from "../services/agent-keys.js";

/** What connecting an app needs: the OAuth clients, this server's address, the key cap. */
interface ConnectDeps extends ClientDeps {
  publicUrl: string;
  maxActiveKeys: number;
}

/** The request checked as GET /oauth/authorize checks it; a request that fails is refused. */
async function checkedRequest(deps: ConnectDeps, q: Record<string, string>) {
  try {
    return await parseAuthorizeRequest(deps, q, `${deps.publicUrl}/mcp`);
  } catch (err) {
    if (err instanceof UntrustedRequestError || err instanceof RedirectableError) {
      const why = err instanceof RedirectableError ? err.description : err.message;
      throw invalidRequest(`This app's request cannot be allowed: ${why}`);
    }
    throw err;
  }
}

const connect = implement(c.connectApp, async (deps: ConnectDeps, a, ctx) => {
  const req = await checkedRequest(deps, a.request);
  const key = await createConnectedApp(deps, ctx.principal.walletId, {
    clientId: req.client.id,
    clientName: req.client.clientName,
    redirectHost: redirectHost(req.redirectUri),
    limitCents: a.limit_cents,
    askBeforeSpending: a.ask_before_spending,
    askAboveCents: a.ask_above_cents,
    maxActive: deps.maxActiveKeys,
  });
  const code = await createCode(deps, {
    clientId: req.client.id,
    agentKeyId: key.id,
    redirectUri: req.redirectUri,
    codeChallenge: req.codeChallenge,
    resource: req.resource,
  });
  return {
    agent_key: key,
    redirect_to: redirectWith(req.redirectUri, { code, state: req.state }, deps.publicUrl),
  };
});

/** The connected-apps operations, bound to the OAuth and key services. */
export function connectedAppOperations(deps: ConnectDeps): Operation[] {
  return [connect(deps)];
}

/**
 * The consent page's reading of an authorization request (./authorize.ts), as the page shows
 * it: the app and where it returns, or why it cannot go on — a page with nowhere to go (an
 * untrusted request), or one whose "return to <host>" link carries the error back. The page
 * (web/consent-routes.tsx) receives this through composition, so it calls no service itself.
 */
import {
  parseAuthorizeRequest,
  RedirectableError,
  redirectHost,
  redirectWith,
  UntrustedRequestError,
} from "./authorize.js";
import type { ClientDeps } from "./clients.js";

/** A request the consent page may show: the app asking, and where a decision goes. */
export interface ConsentRequest {
  clientName: string;
  clientUri: string | null;
  redirectUri: string;
  /** The host of redirectUri, as the page names it. */
  redirectHost: string;
  state: string | undefined;
}

/** What the page does with a request: show it, or say why it cannot go on. */
export type CheckedConsent =
  | { ok: ConsentRequest }
  | { untrusted: string }
  | { problem: { description: string; back: { href: string; host: string } } };

/** Checks authorization request `q` for the consent page (errors are pages, never redirects). */
export async function checkConsentRequest(
  deps: ClientDeps,
  q: Record<string, string | undefined>,
  at: { resource: string; issuer: string },
): Promise<CheckedConsent> {
  try {
    const req = await parseAuthorizeRequest(deps, q, at.resource);
    return {
      ok: {
        clientName: req.client.clientName,
        clientUri: req.client.clientUri,
        redirectUri: req.redirectUri,
        redirectHost: redirectHost(req.redirectUri),
        state: req.state,
      },
    };
  } catch (err) {
    if (err instanceof UntrustedRequestError) return { untrusted: err.message };
    if (err instanceof RedirectableError) {
      const href = redirectWith(
        err.redirectUri,
        { error: err.error, error_description: err.description, state: err.state },
        at.issuer,
      );
      return {
        problem: {
          description: err.description,
          back: { href, host: redirectHost(err.redirectUri) },
        },
      };
    }
    throw err;
  }
}

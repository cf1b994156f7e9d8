/**
 * GET and POST /oauth/authorize: the authorization endpoint as a page. GET checks the request
 * (every error is a page: oauth/authorize.ts) and
 * shows the consent; POST takes the decision — sign in with the wallet key, create a new
 * balance, allow (creating the connected app's agent key and a code) or deny. Every form
 * carries a CSRF token and the signed request, so nothing about the request is kept server-side.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { ApiError, unauthorized } from "../domain/errors.js";
import type { AppEnv } from "../http/env.js";
import { clientAddress } from "../http/middleware/rate-limit.js";
import type { Router } from "../http/router.js";
import {
  type AuthorizeRequest,
  parseAuthorizeRequest,
  RedirectableError,
  redirectHost,
  redirectWith,
  UntrustedRequestError,
} from "../oauth/authorize.js";
import { type ClientDeps, isMetadataDocumentId, NEW_CLIENT_BUCKET } from "../oauth/clients.js";
import { createCode } from "../oauth/tokens.js";
import { createConnectedApp } from "../services/agent-keys.js";
import { authenticate } from "../services/auth.js";
import {
  claimIdempotency,
  releaseIdempotency,
  storeIdempotentResponse,
} from "../services/idempotency.js";
import { signInBucket } from "../services/rate-buckets.js";
import type { Limit, RateLimiter } from "../services/rate-limit.js";
import { createWallet, walletView } from "../services/wallets.js";
import { ConsentPage, type ConsentView, NewWalletPage, ProblemPage } from "./consent-pages.js";
import { decisionPageHeaders } from "./layout.js";
import { csrfToken, csrfValid, readSession, startSession, type WebDeps } from "./session.js";

/** What the consent pages need. */
export interface ConsentDeps extends WebDeps, ClientDeps {
  rateLimiter: RateLimiter;
  trustProxy: boolean;
  signInLimit: Limit;
  /** New OAuth clients per client address (NEW_CLIENT_BUCKET, shared with registration). */
  registerLimit: Limit;
  /** New wallets per client address: the same bucket as POST /wallet's ("create:<address>"). */
  createLimit: Limit;
  maxActiveKeys: number;
  limitsEnabled: boolean;
}

/** The signed request lives as long as a person may take to decide. */
const REQUEST_TTL_MS = 30 * 60_000;
const PURPOSE = "oauth-authorize";

interface SignedRequest extends Record<string, unknown> {
  q: Record<string, string>;
}

function page(
  c: Context<AppEnv>,
  node: JSX.Element,
  status: 200 | 400 | 401 | 403 | 409 | 429,
  targets: string[] = [],
) {
  for (const [k, v] of Object.entries(decisionPageHeaders(targets))) c.header(k, v);
  return c.html(`<!doctype html>${String(node)}`, status);
}

/** Where the form's redirect may go (an origin, or a native app's scheme). */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
}

const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "state",
  "resource",
  "scope",
];

/** The OAuth consent pages of connected apps. */
export function registerConsentRoutes(app: Router, deps: ConsentDeps) {
  const signer = deps.signer;
  const resource = `${deps.publicUrl}/mcp`;
  const issuer = deps.publicUrl;

  const problem = (
    c: Context<AppEnv>,
    title: string,
    text: string,
    status: 400 | 403 | 409 | 429 = 400,
  ) => page(c, <ProblemPage title={title}>{text}</ProblemPage>, status);

  /** Checks the request; an answer (page or redirect) when it cannot go on. */
  async function check(c: Context<AppEnv>, q: Record<string, string | undefined>) {
    try {
      return { ok: await parseAuthorizeRequest(deps, q, resource) } as const;
    } catch (err) {
      if (err instanceof UntrustedRequestError) {
        return { answer: problem(c, "This app cannot connect", err.message) } as const;
      }
      if (err instanceof RedirectableError) {
        // A page, never a redirect (oauth/authorize.ts says why); the person may follow the link.
        const to = redirectWith(
          err.redirectUri,
          { error: err.error, error_description: err.description, state: err.state },
          issuer,
        );
        const back = { href: to, host: redirectHost(err.redirectUri) };
        const node = (
          <ProblemPage title="This app cannot connect" back={back}>
            {err.description}
          </ProblemPage>
        );
        return { answer: page(c, node, 400) } as const;
      }
      throw err;
    }
  }

  async function view(
    c: Context<AppEnv>,
    req: AuthorizeRequest,
    q: Record<string, string>,
    error?: string,
  ) {
    const session = await readSession(deps, c);
    let signedIn: ConsentView["signedIn"] = null;
    if (session) {
      const wallet = await walletView(deps, { kind: "wallet", walletId: session.walletId });
      signedIn = { walletId: session.walletId, balanceCents: wallet.balance_cents };
    }
    const v: ConsentView = {
      clientName: req.client.clientName,
      redirectHost: redirectHost(req.redirectUri),
      clientUri: req.client.clientUri,
      // The nonce makes every rendered form its own: a form is single-use (allow()).
      req: signer.sign(
        PURPOSE,
        { q, n: randomBytes(12).toString("base64url") },
        deps.clock().getTime() + REQUEST_TTL_MS,
      ),
      csrf: csrfToken(deps, c),
      signedIn,
      ...(error ? { error } : {}),
    };
    return page(c, <ConsentPage v={v} />, error ? 401 : 200, [formTarget(req.redirectUri)]);
  }

  const authorizeUrl = (q: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(q)}`;

  app.get("/oauth/authorize", async (c) => {
    const q: Record<string, string> = {};
    for (const name of AUTHORIZE_PARAMS) {
      const value = c.req.query(name);
      if (value !== undefined) q[name] = value;
    }
    if (q.client_id && isMetadataDocumentId(q.client_id)) {
      const refused = await overLimit(
        c,
        (a) => `${NEW_CLIENT_BUCKET}:${a}`,
        deps.registerLimit,
        "Too many apps",
      );
      if (refused) return refused;
    }
    const checked = await check(c, q);
    if ("answer" in checked) return checked.answer;
    return view(c, checked.ok, q);
  });

  app.post("/oauth/authorize", async (c) => {
    const form = Object.fromEntries(new URLSearchParams(await c.req.text()));
    if (!csrfValid(deps, c, form.csrf)) {
      return problem(
        c,
        "Please try again",
        "This form expired or did not come from this page; go back to the app and connect again.",
        403,
      );
    }
    const signed = signer.verify<SignedRequest>(PURPOSE, form.req ?? "", deps.clock().getTime());
    if (!signed)
      return problem(
        c,
        "Please try again",
        "This request expired; go back to the app and connect again.",
      );
    const checked = await check(c, signed.q);
    if ("answer" in checked) return checked.answer;
    const req = checked.ok;
    switch (form.action) {
      case "signin":
        return signIn(c, req, signed.q, form.wallet_key ?? "");
      case "create": {
        const refused = await overLimit(
          c,
          (a) => `create:${a}`,
          deps.createLimit,
          "Too many new balances",
        );
        if (refused) return refused;
        const created = await createWallet(deps, {});
        await startSession(deps, c, created.wallet.wallet_id);
        const node = (
          <NewWalletPage
            walletKey={created.key}
            walletId={created.wallet.wallet_id}
            continueUrl={authorizeUrl(signed.q)}
          />
        );
        return page(c, node, 200);
      }
      case "deny":
        return c.redirect(
          redirectWith(req.redirectUri, { error: "access_denied", state: req.state }, issuer),
          302,
        );
      case "allow":
        return allow(c, req, signed.q, form);
      default:
        return problem(c, "Please try again", "Choose Allow or Deny.");
    }
  });

  /** The caller's address counted in its bucket; the 429 page when over the limit. */
  async function overLimit(
    c: Context<AppEnv>,
    bucket: (address: string) => string,
    limit: Limit,
    title: string,
  ) {
    if (!deps.limitsEnabled) return undefined;
    const d = await deps.rateLimiter.take(bucket(clientAddress(c, deps.trustProxy)), limit);
    if (d.ok) return undefined;
    c.header("Retry-After", String(d.resetSec));
    return problem(c, title, `Wait ${d.resetSec} seconds, then try again.`, 429);
  }

  async function signIn(
    c: Context<AppEnv>,
    req: AuthorizeRequest,
    q: Record<string, string>,
    key: string,
  ) {
    const refused = await overLimit(c, signInBucket, deps.signInLimit, "Too many sign-in attempts");
    if (refused) return refused;
    try {
      if (!key.startsWith("pmk_")) throw unauthorized("not a wallet key");
      const principal = await authenticate(deps, key.trim());
      await startSession(deps, c, principal.walletId);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return view(
        c,
        req,
        q,
        "That is not a wallet key of this kinora (it starts with pmk_). Check it and try again.",
      );
    }
    return c.redirect(authorizeUrl(q), 303);
  }

  async function allow(
    c: Context<AppEnv>,
    req: AuthorizeRequest,
    q: Record<string, string>,
    form: Record<string, string>,
  ) {
    const session = await readSession(deps, c);
    if (!session) return view(c, req, q, "Sign in first.");
    const cents = parseDollars(form.limit_dollars ?? "");
    if (cents === null)
      return view(c, req, q, "Spending limit: give an amount in dollars from 0.01 to 1000.00.");
    // A form allows once: its signed request is claimed as an idempotency key of this session,
    // so submitting it again (a double click, the back button) connects no second app.
    const once = {
      credential: `consent-form:${session.idHash}`,
      key: createHash("sha256")
        .update(form.req ?? "")
        .digest("hex"),
      fingerprint: "allow",
    };
    const used = await claimIdempotency(deps, once).then(
      (claim) => claim.kind === "replay",
      (err: unknown) => {
        if (err instanceof ApiError) return true;
        throw err;
      },
    );
    if (used) {
      const node = (
        <ProblemPage title="Already connected">
          This form was already used: <bdi>{req.client.clientName}</bdi> is connected to your
          balance. Manage it in the console; to connect it again, start from the app.
        </ProblemPage>
      );
      return page(c, node, 409);
    }
    const key = await createConnectedApp(deps, session.walletId, {
      clientId: req.client.id,
      clientName: req.client.clientName,
      redirectHost: redirectHost(req.redirectUri),
      limitCents: cents,
      askBeforeSpending: form.spending !== "trust",
      maxActive: deps.maxActiveKeys,
    }).catch((err: unknown) => {
      if (err instanceof ApiError) return err;
      throw err;
    });
    if (key instanceof ApiError) {
      await releaseIdempotency(deps, once);
      return view(c, req, q, key.detail);
    }
    await storeIdempotentResponse(deps, once, { status: 302, body: "{}", headers: {} });
    const code = await createCode(deps, {
      clientId: req.client.id,
      agentKeyId: key.id,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      resource: req.resource,
    });
    return c.redirect(redirectWith(req.redirectUri, { code, state: req.state }, issuer), 302);
  }
}

/** "5", "5.5", "$5.00" → cents, within an agent key's limit range; null otherwise. */
export function parseDollars(text: string): number | null {
  const m = /^\s*\$?\s*(\d{1,4})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  const cents = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
  return cents >= 1 && cents <= 100_000 ? cents : null;
}

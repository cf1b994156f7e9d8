/**
 * GET and POST /oauth/authorize: the authorization endpoint as a page. GET checks the request
 * (every error is a page: oauth/authorize.ts) and shows the consent; POST takes the decision —
 * sign in with the wallet key, create a new balance, allow or deny. What the owner does runs an
 * operation as the console does (./operation-client.ts): a new balance is POST /wallet's
 * operation, Allow is connectApp (the app's agent key and code), as the signed-in wallet key,
 * with the form's signed request as its Idempotency-Key — so a form allows once. Every form
 * carries a CSRF token and the signed request, so nothing about the request is kept server-side.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { connectApp } from "../api/contracts/connected-apps.js";
import { createWallet, getWallet } from "../api/contracts/wallet.js";
import { AGENT_KEY_LIMIT_CENTS } from "../domain/limits.js";
import type { AppEnv } from "../http/env.js";
import { clientAddress } from "../http/middleware/rate-limit.js";
import type { Router } from "../http/router.js";
import type { CheckedConsent, ConsentRequest } from "../oauth/consent-check.js";
import { ConsentPage, type ConsentView, NewWalletPage, ProblemPage } from "./consent-pages.js";
import { type FormValues, formValues, one, parseDollars } from "./console-forms.js";
import { decisionPageHeaders } from "./layout.js";
import { type Caller, callerOf, callOperation, type PagesSurface } from "./operation-client.js";
import { csrfToken, csrfValid, readSession, startSession, type WebDeps } from "./session.js";

/** What the consent pages are given by composition: the operations and OAuth's request rules. */
export interface ConsentDeps {
  surface: PagesSurface;
  web: WebDeps;
  /** Reads authorization request `q` (oauth/consent-check.ts). */
  check(q: Record<string, string | undefined>): Promise<CheckedConsent>;
  /** Where a decision goes: the redirect URI with these parameters and kinora's iss. */
  redirect(redirectUri: string, params: Record<string, string | undefined>): string;
  /** Whether a client_id is a metadata document's URL (fetching it registers a client). */
  isMetadataDocumentId(clientId: string): boolean;
  /** One new client from `address`, in the bucket registration counts; when over: the wait. */
  takeNewClient(address: string): Promise<{ ok: true } | { ok: false; retryAfterSec: number }>;
}

/** The signed request lives as long as a person may take to decide. */
const REQUEST_TTL_MS = 30 * 60_000;
const PURPOSE = "oauth-authorize";

interface SignedRequest extends Record<string, unknown> {
  q: Record<string, string>;
}

type PageStatus = 200 | 400 | 401 | 403 | 409 | 429;

function page(c: Context<AppEnv>, node: JSX.Element, status: PageStatus, targets: string[] = []) {
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

const problem = (c: Context<AppEnv>, title: string, text: string, status: PageStatus = 400) =>
  page(c, <ProblemPage title={title}>{text}</ProblemPage>, status);

const tooMany = (c: Context<AppEnv>, title: string, retryAfterSec: number) => {
  c.header("Retry-After", String(retryAfterSec));
  return problem(c, title, `Wait ${retryAfterSec} seconds, then try again.`, 429);
};

const authorizeUrl = (q: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(q)}`;

/** The request checked; the page to answer instead when it cannot go on. */
async function check(deps: ConsentDeps, c: Context<AppEnv>, q: Record<string, string>) {
  const checked = await deps.check(q);
  if ("ok" in checked) return checked;
  if ("untrusted" in checked) {
    return { answer: problem(c, "This app cannot connect", checked.untrusted) };
  }
  // A page, never a redirect (oauth/authorize.ts says why); the person may follow the link.
  const node = (
    <ProblemPage title="This app cannot connect" back={checked.problem.back}>
      {checked.problem.description}
    </ProblemPage>
  );
  return { answer: page(c, node, 400) };
}

/** The signed-in owner, as the operations see the caller; null when signed out. */
async function ownerOf(deps: ConsentDeps, c: Context<AppEnv>): Promise<Caller | null> {
  const session = await readSession(deps.web, c);
  return session ? callerOf(deps.surface, session) : null;
}

/** The consent page for `req`, signed in or not; `error` is said above the decision. */
async function view(
  deps: ConsentDeps,
  c: Context<AppEnv>,
  at: { req: ConsentRequest; q: Record<string, string> },
  refused?: { error: string; status: PageStatus; form?: FormValues },
) {
  const caller = await ownerOf(deps, c);
  let signedIn: ConsentView["signedIn"] = null;
  if (caller) {
    const read = await callOperation(deps.surface, c, { contract: getWallet, input: {}, caller });
    if (read.ok) {
      signedIn = {
        walletId: read.body.wallet.wallet_id,
        balanceCents: read.body.wallet.balance_cents,
      };
    }
  }
  const v: ConsentView = {
    clientName: at.req.clientName,
    redirectHost: at.req.redirectHost,
    clientUri: at.req.clientUri,
    // The nonce makes every rendered form its own: a form allows once (allow()).
    req: deps.web.signer.sign(
      PURPOSE,
      { q: at.q, n: randomBytes(12).toString("base64url") },
      deps.web.clock().getTime() + REQUEST_TTL_MS,
    ),
    csrf: csrfToken(deps.web, c),
    signedIn,
    ...(refused ? { error: refused.error } : {}),
    ...(refused?.form ? { typed: typedIn(refused.form) } : {}),
  };
  return page(c, <ConsentPage v={v} />, refused?.status ?? 200, [formTarget(at.req.redirectUri)]);
}

/** What was typed into the decision form, put back after a refusal. */
const typedIn = (form: FormValues) => ({
  limitDollars: one(form, "limit_dollars"),
  trust: one(form, "spending") === "trust",
  askAboveDollars: one(form, "ask_above_dollars"),
});

/** The form's request, checked: where the decision applies. */
interface Decision {
  req: ConsentRequest;
  q: Record<string, string>;
  form: FormValues;
}

async function signIn(deps: ConsentDeps, c: Context<AppEnv>, d: Decision) {
  const tried = await deps.surface.rates.signIn(clientAddress(c, deps.surface.trustProxy));
  if (!tried.ok) return tooMany(c, "Too many sign-in attempts", tried.retryAfterSec);
  const key = one(d.form, "wallet_key").trim();
  const caller = key.startsWith("pmk_") ? await callerOf(deps.surface, { walletKey: key }) : null;
  if (!caller) {
    const error =
      "That is not a wallet key of this kinora (it starts with pmk_). Check it and try again.";
    return view(deps, c, d, { error, status: 401 });
  }
  await startSession(deps.web, c, { walletId: caller.principal.walletId, walletKey: key });
  return c.redirect(authorizeUrl(d.q), 303);
}

/** A new balance by POST /wallet's operation (its per-address bucket), signed in at once. */
async function createBalance(deps: ConsentDeps, c: Context<AppEnv>, d: Decision) {
  const created = await callOperation(deps.surface, c, { contract: createWallet, input: {} });
  if (!created.ok) {
    if (created.code === "rate_limited") {
      return tooMany(c, "Too many new balances", Number(created.retryAfter ?? 60));
    }
    // cast: a refused create answers one of the error table's statuses, passed on (PageStatus lists those the page expects)
    return problem(c, "No balance created", created.detail, created.status as PageStatus);
  }
  const { key, wallet } = created.body;
  await startSession(deps.web, c, { walletId: wallet.wallet_id, walletKey: key });
  const node = (
    <NewWalletPage walletKey={key} walletId={wallet.wallet_id} continueUrl={authorizeUrl(d.q)} />
  );
  return page(c, node, 200);
}

/** Codes that say this form was sent before: it connected an app already (or is doing so). */
const USED = new Set(["idempotency_key_reused", "idempotency_in_flight"]);

/** Allow: the app's agent key and code by connectApp, once per rendered form. */
async function allow(deps: ConsentDeps, c: Context<AppEnv>, d: Decision) {
  const caller = await ownerOf(deps, c);
  if (!caller) return view(deps, c, d, { error: "Sign in first.", status: 401 });
  const cents = parseDollars(one(d.form, "limit_dollars"));
  const { min, max } = AGENT_KEY_LIMIT_CENTS;
  if (cents === null || cents < min || cents > max) {
    const error = "Spending limit: give an amount in dollars from 0.01 to 1000.00.";
    return view(deps, c, d, { error, status: 400, form: d.form });
  }
  // The owner's threshold: empty asks before every purchase; its range is the operation's.
  const askAboveText = one(d.form, "ask_above_dollars").trim();
  const askAbove = askAboveText === "" ? null : parseDollars(askAboveText);
  if (askAbove === null && askAboveText !== "") {
    const error = "Ask only above: give dollars (e.g. 1.00), or leave it empty to ask every time.";
    return view(deps, c, d, { error, status: 400, form: d.form });
  }
  const trust = one(d.form, "spending") === "trust";
  const answer = await callOperation(deps.surface, c, {
    contract: connectApp,
    input: {
      request: d.q,
      limit_cents: cents,
      ask_before_spending: !trust,
      ...(trust ? {} : { ask_above_cents: askAbove }),
    },
    caller,
    // The form's signed request (one per rendered page) is its Idempotency-Key: sent again (a
    // double click, the back button), it connects no second app.
    token: createHash("sha256").update(one(d.form, "req")).digest("base64url"),
    fields: { limit_cents: "Spending limit", ask_above_cents: "Ask only above" },
  });
  if ((answer.ok && answer.replayed) || (!answer.ok && USED.has(answer.code))) {
    const node = (
      <ProblemPage title="Already connected">
        This form was already used: <bdi>{d.req.clientName}</bdi> is connected to your balance.
        Manage it in the console; to connect it again, start from the app.
      </ProblemPage>
    );
    return page(c, node, 409);
  }
  if (!answer.ok) {
    // cast: the refusal's own status is passed on; the view's type names only the literal statuses it is called with
    return view(deps, c, d, { error: answer.detail, status: answer.status as 400, form: d.form });
  }
  return c.redirect(answer.body.redirect_to, 302);
}

/** POST /oauth/authorize: the form's request verified, then the decision it carries. */
async function decide(deps: ConsentDeps, c: Context<AppEnv>) {
  const form = formValues(await c.req.text());
  if (!csrfValid(deps.web, c, one(form, "csrf"))) {
    const why =
      "This form expired or did not come from this page; go back to the app and connect again.";
    return problem(c, "Please try again", why, 403);
  }
  const now = deps.web.clock().getTime();
  const signed = deps.web.signer.verify<SignedRequest>(PURPOSE, one(form, "req"), now);
  if (!signed) {
    return problem(
      c,
      "Please try again",
      "This request expired; go back to the app and connect again.",
    );
  }
  const checked = await check(deps, c, signed.q);
  if ("answer" in checked) return checked.answer;
  const d: Decision = { req: checked.ok, q: signed.q, form };
  switch (one(form, "action")) {
    case "signin":
      return signIn(deps, c, d);
    case "create":
      return createBalance(deps, c, d);
    case "deny":
      return c.redirect(
        deps.redirect(d.req.redirectUri, { error: "access_denied", state: d.req.state }),
        302,
      );
    case "allow":
      return allow(deps, c, d);
    default:
      return problem(c, "Please try again", "Choose Allow or Deny.");
  }
}

/** The OAuth consent pages of connected apps. */
export function registerConsentRoutes(app: Router, deps: ConsentDeps) {
  app.get("/oauth/authorize", async (c) => {
    const q: Record<string, string> = {};
    for (const name of AUTHORIZE_PARAMS) {
      const value = c.req.query(name);
      if (value !== undefined) q[name] = value;
    }
    if (q.client_id && deps.isMetadataDocumentId(q.client_id)) {
      const tried = await deps.takeNewClient(clientAddress(c, deps.surface.trustProxy));
      if (!tried.ok) return tooMany(c, "Too many apps", tried.retryAfterSec);
    }
    const checked = await check(deps, c, q);
    if ("answer" in checked) return checked.answer;
    return view(deps, c, { req: checked.ok, q });
  });
  app.post("/oauth/authorize", (c) => decide(deps, c));
}

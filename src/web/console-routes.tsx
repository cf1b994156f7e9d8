/**
 * /console: the wallet owner's pages. Sign in with the wallet key (rate-limited per address),
 * then the dashboard; every form carries the CSRF token of this browser, and every action is
 * a call to the same service the REST API uses, as the wallet key would make it. Without a
 * balance, the sign-in page creates one (its wallet key shown once, as on the consent page).
 */
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { bidiControlIn } from "../domain/bidi.js";
import { ApiError, unauthorized } from "../domain/errors.js";
import { CARD_TOPUP_CENTS } from "../domain/limits.js";
import { displayCents } from "../domain/money.js";
import { withoutControlChars } from "../domain/text.js";
import type { AppEnv } from "../http/env.js";
import { smallBody } from "../http/middleware/body-limit.js";
import { clientAddress } from "../http/middleware/rate-limit.js";
import type { Router } from "../http/router.js";
import { listClips } from "../kinds/clips/services/commands.js";
import type { ClipDeps } from "../kinds/clips/services/deps.js";
import { restoreFrameKey, restoreStillKey } from "../kinds/restore/services/definition.js";
import { listRestoreJobs } from "../kinds/restore/services/list.js";
import {
  changeKeyLimit,
  createAgentKey,
  listAgentKeys,
  revokeAgentKey,
} from "../services/agent-keys.js";
import { authenticate, type Principal } from "../services/auth.js";
import { listLedger } from "../services/ledger-view.js";
import { openTopupCheckout } from "../services/payments/checkouts.js";
import type { PaymentsDeps } from "../services/payments/deps.js";
import type { Platform } from "../services/platform.js";
import { signInBucket } from "../services/rate-buckets.js";
import type { Limit } from "../services/rate-limit.js";
import { spendingByDay } from "../services/spending-view.js";
import { createWallet, walletView } from "../services/wallets.js";
import { type EndpointDeps, listEndpoints } from "../services/webhooks/endpoints.js";
import { NewWalletPage } from "./consent-pages.js";
import { parseDollars } from "./consent-routes.js";
import { registerCompareRoutes } from "./console-compare.js";
import {
  DashboardPage,
  type DashboardView,
  keyName,
  RevokeConfirmPage,
  SignInPage,
  type Status,
} from "./console-pages.js";
import { bidiRefusal, registerWebhookForms } from "./console-webhook-forms.js";
import { decisionPageHeaders } from "./layout.js";
import { csrfToken, csrfValid, endSession, readSession, startSession } from "./session.js";

/** What the console pages need. */
interface ConsoleDeps {
  platform: Platform;
  webhooks: EndpointDeps;
  clips: ClipDeps;
  payments: PaymentsDeps;
  signInLimit: Limit;
}

/** The wallet owner's console: sign in, keys, webhooks, ledger. */
/** Host names that always mean this machine: the console may be opened at any of them. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Where the checkout's return pages should lead back to the console: the origin the owner
 * is signed in at (their session cookie lives there) when it is PUBLIC_URL's own or a loopback
 * name (localhost vs 127.0.0.1); null for any other Host header, so a forged one cannot put a
 * foreign link on kinora's pages — those pages then link to /console on their own host.
 */
export function consoleReturnOrigin(requestUrl: string, publicUrl: string): string | null {
  const here = new URL(requestUrl);
  if (here.origin === new URL(publicUrl).origin) return here.origin;
  return LOOPBACK_NAMES.has(here.hostname) ? here.origin : null;
}

export function registerConsoleRoutes(app: Router, deps: ConsoleDeps) {
  app.use("/console/*", smallBody);
  const web = deps.platform;

  /**
   * A console page. Its forms may lead to the checkout's pages (a top-up redirects there), which
   * need not be on the host the owner typed (localhost vs PUBLIC_URL's 127.0.0.1, or Stripe).
   */
  function page(c: Context<AppEnv>, node: JSX.Element, status: Status = 200) {
    const headers = decisionPageHeaders([deps.payments.checkout.pageOrigin()], {
      selfImages: true,
    });
    for (const [k, v] of Object.entries(headers)) c.header(k, v);
    return c.html(`<!doctype html>${String(node)}`, status);
  }

  /** The sign-in page again, saying why. */
  const signIn = (c: Context<AppEnv>, error: string, status: Status) =>
    page(c, <SignInPage csrf={csrfToken(web, c)} error={error} />, status);

  /** One request of `bucket`'s rate rule (always allowed when the operator turned limits off). */
  const take = (bucket: string, limit: Limit) =>
    web.config.rateLimits.enabled
      ? web.rateLimiter.take(bucket, limit)
      : Promise.resolve({ ok: true, resetSec: 0 });

  async function dashboard(
    c: Context<AppEnv>,
    walletId: string,
    extra: Partial<DashboardView> = {},
    status: Status = 200,
  ) {
    const principal: Principal = { kind: "wallet", walletId };
    const before = Number(c.req.query("ledger_before"));
    const [wallet, keys, restores, clips, ledger, endpoints, spending] = await Promise.all([
      walletView(web, principal),
      listAgentKeys(web, walletId),
      listRestoreJobs(web, principal, { limit: 20 }),
      listClips(deps.clips, principal),
      listLedger(web, walletId, Number.isSafeInteger(before) && before > 0 ? { before } : {}),
      listEndpoints(deps.webhooks, walletId),
      spendingByDay(web, walletId, 30),
    ]);
    // A done restore's still and full-size frames exist unless the worker could not make them
    // (or it predates them).
    const done = restores.jobs.filter((j) => j.status === "done");
    const heads = await Promise.all(done.map((j) => web.storage.head(restoreStillKey(j.id))));
    const frames = await Promise.all(
      done.map((j) => web.storage.head(restoreFrameKey(j.id, "after"))),
    );
    const v: DashboardView = {
      wallet,
      keys,
      restores: restores.jobs,
      stills: new Set(done.filter((_, i) => heads[i]).map((j) => j.id)),
      frames: new Set(done.filter((_, i) => frames[i]).map((j) => j.id)),
      spending,
      clips: clips.slice(0, 20),
      ledger,
      endpoints,
      csrf: csrfToken(web, c),
      allowLoopbackReceivers: deps.webhooks.receivers.allowHttpLoopback,
      ...extra,
    };
    return page(c, <DashboardPage v={v} />, status);
  }

  /** The signed-in wallet of a form post with a valid CSRF token, or the page to show instead. */
  async function formSession(c: Context<AppEnv>, form: Record<string, string>) {
    if (!csrfValid(web, c, form.csrf)) {
      return {
        answer: page(
          c,
          <SignInPage csrf={csrfToken(web, c)} error="That form expired; sign in again." />,
          403,
        ),
      };
    }
    const session = await readSession(web, c);
    if (!session) return { answer: c.redirect("/console", 303) };
    return { walletId: session.walletId };
  }

  const formOf = async (c: Context<AppEnv>) =>
    Object.fromEntries(new URLSearchParams(await c.req.text()));

  app.get("/console", async (c) => {
    const session = await readSession(web, c);
    if (!session) return page(c, <SignInPage csrf={csrfToken(web, c)} />);
    return dashboard(c, session.walletId);
  });

  app.post("/console/signin", async (c) => {
    const form = await formOf(c);
    if (!csrfValid(web, c, form.csrf)) return signIn(c, "That form expired; try again.", 403);
    const d = await take(signInBucket(clientAddress(c, web.config.trustProxy)), deps.signInLimit);
    if (!d.ok) {
      c.header("Retry-After", String(d.resetSec));
      return signIn(c, `Too many sign-in attempts; wait ${d.resetSec} seconds.`, 429);
    }
    const key = (form.wallet_key ?? "").trim();
    try {
      if (!key.startsWith("pmk_")) throw unauthorized("not a wallet key");
      const principal = await authenticate(web, key);
      await startSession(web, c, principal.walletId);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return signIn(c, "That is not a wallet key of this kinora (it starts with pmk_).", 401);
    }
    return c.redirect("/console", 303);
  });

  // A new balance from the sign-in page: the same create as POST /wallet (and its per-address
  // limit), signed in at once, the wallet key shown in this response only.
  app.post("/console/create", async (c) => {
    const form = await formOf(c);
    if (!csrfValid(web, c, form.csrf)) return signIn(c, "That form expired; try again.", 403);
    const address = clientAddress(c, web.config.trustProxy);
    const d = await take(`create:${address}`, web.config.rateLimits.create);
    if (!d.ok) {
      c.header("Retry-After", String(d.resetSec));
      return signIn(c, `Too many new balances from this address; wait ${d.resetSec} seconds.`, 429);
    }
    const created = await createWallet(web, {});
    await startSession(web, c, created.wallet.wallet_id);
    const node = (
      <NewWalletPage
        walletKey={created.key}
        walletId={created.wallet.wallet_id}
        continueUrl="/console"
      />
    );
    return page(c, node);
  });

  app.post("/console/signout", async (c) => {
    const form = await formOf(c);
    if (csrfValid(web, c, form.csrf)) await endSession(web, c);
    return c.redirect("/console", 303);
  });

  app.post("/console/topup", async (c) => {
    const form = await formOf(c);
    const s = await formSession(c, form);
    if ("answer" in s) return s.answer;
    const cents = parseDollars(form.amount_dollars ?? "");
    // The card top-up's own range (domain/limits.ts), as POST /wallet/topup checks it.
    const { min, max } = CARD_TOPUP_CENTS;
    if (cents === null || cents < min || cents > max) {
      const range = `${displayCents(min)} and ${displayCents(max)}`;
      return dashboard(c, s.walletId, { notice: `Top up between ${range}.` }, 400);
    }
    // A checkout that cannot open (the provider down, the wallet paused) says so on the page.
    const opened = await openTopupCheckout(deps.payments, {
      walletId: s.walletId,
      amountCents: cents,
      returnOrigin: consoleReturnOrigin(c.req.url, web.publicUrl),
    }).catch((err: unknown) => {
      if (err instanceof ApiError) return err;
      throw err;
    });
    if (opened instanceof ApiError) {
      return dashboard(c, s.walletId, { notice: `Top-up not started: ${opened.detail}` }, 400);
    }
    return c.redirect(opened.checkout_url, 303);
  });

  app.post("/console/keys", async (c) => {
    const form = await formOf(c);
    const s = await formSession(c, form);
    if ("answer" in s) return s.answer;
    // A refusal goes back beside the form, with what was typed in it.
    const refuse = (message: string) =>
      dashboard(c, s.walletId, { formError: { form: "key", message, values: form } }, 400);
    const cents = parseDollars(form.limit_dollars ?? "");
    const bidi = bidiControlIn(form.label ?? "");
    if (bidi) return refuse(bidiRefusal("Label", bidi));
    const label = withoutControlChars(form.label ?? "")
      .trim()
      .slice(0, 100);
    if (cents === null) return refuse("Spending limit: give dollars from 0.01 to 1000.00.");
    const created = await createAgentKey(web, s.walletId, {
      label,
      limitCents: cents,
      askBeforeSpending: form.trust !== "1",
      maxActive: web.config.maxAgentKeys,
    }).catch((err: unknown) => {
      if (err instanceof ApiError) return err;
      throw err;
    });
    if (created instanceof ApiError) return refuse(created.detail);
    // Shown in this response only (never in a URL or a redirect), and never again.
    return dashboard(c, s.walletId, {
      newSecret: { label: label || created.agent_key.id, key: created.key },
    });
  });

  /** The wallet's key `id`, or undefined. */
  const keyOf = async (walletId: string, id: string) =>
    (await listAgentKeys(web, walletId)).find((k) => k.id === id);

  // Revoking asks first, on a page of its own (no script needed): GET shows it, and a POST
  // without the confirmation's field shows it too rather than acting.
  const confirmRevoke = async (c: Context<AppEnv>, walletId: string) => {
    const k = await keyOf(walletId, c.req.param("id") ?? "");
    if (!k) return dashboard(c, walletId, { notice: "No such key in this wallet." }, 404);
    if (k.revoked) return dashboard(c, walletId, { done: `${keyName(k)} is already revoked.` });
    return page(c, <RevokeConfirmPage k={k} csrf={csrfToken(web, c)} />);
  };

  app.get("/console/keys/:id/revoke", async (c) => {
    const session = await readSession(web, c);
    if (!session) return c.redirect("/console", 303);
    return confirmRevoke(c, session.walletId);
  });

  app.post("/console/keys/:id/revoke", async (c) => {
    const form = await formOf(c);
    const s = await formSession(c, form);
    if ("answer" in s) return s.answer;
    if (form.confirm !== "yes") return confirmRevoke(c, s.walletId);
    try {
      await revokeAgentKey(web, s.walletId, c.req.param("id"));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return dashboard(c, s.walletId, { notice: "No such key in this wallet." }, 400);
    }
    return c.redirect("/console#keys", 303);
  });

  // The same change as PATCH /wallet/keys/{id}: never below what the key spent, never revoked.
  app.post("/console/keys/:id/limit", async (c) => {
    const form = await formOf(c);
    const s = await formSession(c, form);
    if ("answer" in s) return s.answer;
    const k = await keyOf(s.walletId, c.req.param("id") ?? "");
    if (!k) return dashboard(c, s.walletId, { notice: "No such key in this wallet." }, 404);
    const name = keyName(k);
    const cents = parseDollars(form.limit_dollars ?? "");
    if (cents === null) {
      const notice = `Limit of ${name} not changed: give dollars from 0.01 to 1000.00.`;
      return dashboard(c, s.walletId, { notice }, 400);
    }
    if (cents < k.spent_cents) {
      const notice = `Limit of ${name} not changed: it already spent ${displayCents(k.spent_cents)}, and its limit cannot be lower.`;
      return dashboard(c, s.walletId, { notice }, 400);
    }
    try {
      const changed = await changeKeyLimit(web, s.walletId, k.id, cents);
      const done = `The limit of ${name} is now ${displayCents(changed.limit_cents)}; it has ${displayCents(changed.remaining_cents)} left.`;
      return dashboard(c, s.walletId, { done });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return dashboard(
        c,
        s.walletId,
        { notice: `Limit of ${name} not changed: ${err.detail}` },
        400,
      );
    }
  });

  registerCompareRoutes(app, { platform: web, page });

  registerWebhookForms(app, { formOf, formSession, dashboard, webhooks: deps.webhooks });
}

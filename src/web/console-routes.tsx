/**
 * /console: the wallet owner's pages. Sign in with the wallet key (rate-limited per address):
 * the session keeps the key sealed, and every page and form then runs the operations REST serves
 * as that key (./operation-client.ts) — the dashboard reads them, each form runs one
 * (./console-actions.tsx). Without a balance, the sign-in page creates one with the same
 * operation as POST /wallet (its wallet key shown once, as on the consent page).
 */
import type { Context } from "hono";
import { createWallet } from "../api/contracts/wallet.js";
import type { AppEnv } from "../http/env.js";
import { smallBody } from "../http/middleware/body-limit.js";
import { clientAddress } from "../http/middleware/rate-limit.js";
import type { Router } from "../http/router.js";
import { approvalReturnPath, registerApprovalRoutes } from "./approve-routes.js";
import { NewWalletPage } from "./consent-pages.js";
import { registerConsoleActions } from "./console-actions.js";
import { registerCompareRoutes } from "./console-compare.js";
import { one } from "./console-forms.js";
import { type ConsoleKit, dashboard, formOf, page, signedIn, signInAgain } from "./console-kit.js";
import { SignInPage } from "./console-pages.js";
import { registerPreviewRoutes } from "./console-preview.js";
import { callerOf, callOperation } from "./operation-client.js";
import { csrfToken, csrfValid, endSession, startSession } from "./session.js";

const NOT_A_WALLET_KEY = "That is not a wallet key of this kinora (it starts with pmk_).";

/** POST /console/signin: the wallet key checked (tries counted per address), then a session. */
async function signIn(kit: ConsoleKit, c: Context<AppEnv>) {
  const form = await formOf(c);
  if (!csrfValid(kit.web, c, one(form, "csrf"))) {
    return signInAgain(kit, c, "That form expired; try again.", 403);
  }
  const tried = await kit.surface.rates.signIn(clientAddress(c, kit.surface.trustProxy));
  if (!tried.ok) {
    c.header("Retry-After", String(tried.retryAfterSec));
    return signInAgain(
      kit,
      c,
      `Too many sign-in attempts; wait ${tried.retryAfterSec} seconds.`,
      429,
    );
  }
  const key = one(form, "wallet_key").trim();
  const caller = key.startsWith("pmk_") ? await callerOf(kit.surface, { walletKey: key }) : null;
  if (!caller) return signInAgain(kit, c, NOT_A_WALLET_KEY, 401);
  await startSession(kit.web, c, { walletId: caller.principal.walletId, walletKey: key });
  return c.redirect(approvalReturnPath(one(form, "next")) ?? "/console", 303);
}

/**
 * POST /console/create: a new balance by POST /wallet's operation (and its per-address bucket),
 * signed in at once, its wallet key shown in this response only.
 */
async function createBalance(kit: ConsoleKit, c: Context<AppEnv>) {
  const form = await formOf(c);
  if (!csrfValid(kit.web, c, one(form, "csrf"))) {
    return signInAgain(kit, c, "That form expired; try again.", 403);
  }
  const created = await callOperation(kit.surface, c, { contract: createWallet, input: {} });
  if (!created.ok) {
    if (created.retryAfter) c.header("Retry-After", created.retryAfter);
    // cast: the refusal's own status is passed on; signInAgain's type names only the literal statuses it is called with
    return signInAgain(kit, c, `No balance created: ${created.detail}`, created.status as 429);
  }
  const { key, wallet } = created.body;
  await startSession(kit.web, c, { walletId: wallet.wallet_id, walletKey: key });
  const node = <NewWalletPage walletKey={key} walletId={wallet.wallet_id} continueUrl="/console" />;
  return page(kit, c, node);
}

/** The console's routes: sign-in, the dashboard, its forms and the pictures of done jobs. */
export function registerConsoleRoutes(app: Router, kit: ConsoleKit) {
  app.use("/console/*", smallBody);

  app.get("/console", async (c) => {
    const s = await signedIn(kit, c);
    if ("answer" in s) return s.answer;
    if (!s.caller) return page(kit, c, <SignInPage csrf={csrfToken(kit.web, c)} />);
    return dashboard(kit, c, s.caller);
  });
  app.post("/console/signin", (c) => signIn(kit, c));
  app.post("/console/create", (c) => createBalance(kit, c));
  app.post("/console/signout", async (c) => {
    const form = await formOf(c);
    if (csrfValid(kit.web, c, one(form, "csrf"))) await endSession(kit.web, c);
    return c.redirect("/console", 303);
  });

  registerConsoleActions(app, kit);
  registerCompareRoutes(app, kit);
  registerPreviewRoutes(app, kit);
  registerApprovalRoutes(app, kit);
}

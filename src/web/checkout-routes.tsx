/**
 * GET /checkout/{id} (the test-mode pay page), POST …/pay and …/cancel (its forms), and the
 * return pages …/done and …/cancelled, which are also Stripe's success_url and cancel_url.
 * Forms post with an empty body; the per-checkout token rides in the action URL.
 */

import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { AppEnv } from "../http/env.js";
import { smallBody } from "../http/middleware/body-limit.js";
import type { Router } from "../http/router.js";
import { checkoutPageToken, checkPageToken } from "../payments/test-checkout/provider.js";
import type { Signer } from "../signing.js";
import {
  CancelledPage,
  type CheckoutView,
  DonePage,
  NotFoundPage,
  PayPage,
  statusSentence,
} from "./checkout-pages.js";
import { PAGE_HEADERS, Page } from "./layout.js";

const ID = /^co_[0-9A-Za-z]{1,40}$/;

function html(c: Context<AppEnv>, node: JSX.Element, status: 200 | 400 | 404 | 410 = 200) {
  for (const [k, v] of Object.entries(PAGE_HEADERS)) c.header(k, v);
  return c.html(`<!doctype html>${String(node)}`, status);
}

/**
 * What the checkout pages do with a checkout, bound to the payments services by the payments
 * feature: the pages read and act only through these, never the database.
 */
export interface CheckoutActions {
  find(id: string): Promise<CheckoutView | undefined>;
  /** The test checkout's Pay: the same path a provider's paid event takes (idempotent). */
  pay(id: string): Promise<void>;
  cancel(id: string): Promise<void>;
  clock(): Date;
}

/** The checkout pages: after-payment pages and the built-in test checkout. */
export function registerCheckoutPages(app: Router, actions: CheckoutActions, signer: Signer) {
  // The pages post small forms; nothing here takes a file.
  app.use("/checkout/*", smallBody);
  const load = async (c: Context<AppEnv>): Promise<CheckoutView | undefined> => {
    const id = c.req.param("id") ?? "";
    return ID.test(id) ? actions.find(id) : undefined;
  };
  const expired = (row: CheckoutView) => new Date(row.expires_at) <= actions.clock();
  const tokenOk = (c: Context<AppEnv>, row: CheckoutView) =>
    checkPageToken(signer, row.id, c.req.query("token") ?? "", actions.clock().getTime());
  const bad = (c: Context<AppEnv>, text: string) =>
    html(c, <Page title="Checkout">{<p id="status">{text}</p>}</Page>, 400);

  app.get("/checkout/:id", async (c) => {
    const row = await load(c);
    if (!row) return html(c, <NotFoundPage />, 404);
    if (row.provider !== "test") {
      return html(
        c,
        <Page title="Checkout">{<p id="status">{statusSentence(row, expired(row))}</p>}</Page>,
      );
    }
    const token = checkoutPageToken(signer, row.id, actions.clock().getTime());
    return html(c, <PayPage row={row} token={token} expired={expired(row)} />);
  });

  app.post("/checkout/:id/pay", async (c) => {
    const row = await load(c);
    if (row?.provider !== "test") return html(c, <NotFoundPage />, 404);
    if (!tokenOk(c, row)) return bad(c, "This form is out of date; open the checkout link again.");
    const done = `/checkout/${row.id}/done`;
    if (row.status === "paid" || row.status === "refunded") return c.redirect(done, 303);
    if (row.status !== "open" || expired(row)) {
      return html(c, <PayPage row={row} token="" expired={expired(row)} />, 410);
    }
    // The same path a Stripe paid event takes; a second click finds it paid and does nothing.
    await actions.pay(row.id);
    return c.redirect(done, 303);
  });

  app.post("/checkout/:id/cancel", async (c) => {
    const row = await load(c);
    if (row?.provider !== "test") return html(c, <NotFoundPage />, 404);
    if (!tokenOk(c, row)) return bad(c, "This form is out of date; open the checkout link again.");
    await actions.cancel(row.id);
    return c.redirect(`/checkout/${row.id}/cancelled`, 303);
  });

  app.get("/checkout/:id/done", async (c) => {
    const row = await load(c);
    if (!row) return html(c, <NotFoundPage />, 404);
    return html(c, <DonePage row={row} testMode={row.provider === "test"} />);
  });

  app.get("/checkout/:id/cancelled", async (c) => {
    const row = await load(c);
    if (!row) return html(c, <NotFoundPage />, 404);
    return html(c, <CancelledPage row={row} testMode={row.provider === "test"} />);
  });
}

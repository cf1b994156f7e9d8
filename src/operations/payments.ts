/** Top-up operations' handlers. */

import * as c from "../api/contracts/payments.js";
import { implement, type Operation, reply } from "../api/operation.js";
import { openTopupCheckout } from "../services/payments/checkouts.js";
import type { PaymentsDeps } from "../services/payments/deps.js";
import { cryptoTopup } from "../services/payments/usdc.js";

const topupLink = implement(c.createTopUpLink, async (deps: PaymentsDeps, a, ctx) =>
  openTopupCheckout(deps, {
    walletId: ctx.principal.walletId,
    amountCents: a.amount_cents,
    email: a.email ?? null,
    // The checkout's return pages lead back to the console where the call was made: PUBLIC_URL's
    // over REST and MCP; the origin the owner is signed in at when the console asks (its host
    // is checked there: web/console-routes.tsx, consoleReturnOrigin).
    returnOrigin: new URL(ctx.url).origin,
  }),
);

const usdc = implement(c.topUpWithUsdc, async (deps: PaymentsDeps, a, ctx) => {
  const result = await cryptoTopup(deps, {
    principal: ctx.principal,
    amountCents: a.amount_cents,
    paymentHeader: ctx.payment,
    // The payment terms name where they were asked for: this call's own address.
    resource: { url: ctx.url, description: "kinora wallet top-up" },
  });
  // cast: the top-up's answer is the contract's output in either status (200 credited, 202 held)
  return reply(result.body as never, {
    status: result.status === 200 ? 200 : 202,
    ...(result.paymentResponse ? { paymentResponse: result.paymentResponse } : {}),
  });
});

/** The top-up operations, bound to the payments services. */
export function topupOperations(deps: PaymentsDeps): Operation[] {
  return [topupLink, usdc].map((bind) => bind(deps));
}

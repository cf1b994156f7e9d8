/** The checkout pages: the test-mode pay page, and the done / cancelled return pages. */

import type { Selectable } from "kysely";
import type { CheckoutsTable } from "../db/schema-payments.js";
import { displayCents } from "../domain/money.js";
import { Page } from "./layout.js";
import { Owned } from "./owned-text.js";

/** What the checkout pages show of a checkout (the payments feature reads it for them). */
export type CheckoutView = Pick<
  Selectable<CheckoutsTable>,
  | "id"
  | "purpose"
  | "wallet_id"
  | "job_id"
  | "amount_cents"
  | "email"
  | "provider"
  | "status"
  | "expires_at"
  | "return_origin"
>;

/**
 * A top-up starts in the owner's console: its return pages lead back there — to the origin it
 * was started from (where the owner's session is), else to this host's console.
 */
function BackToConsole(props: { row: CheckoutView }) {
  if (props.row.purpose !== "topup") return null;
  return (
    <p>
      <a class="button pay" id="back-to-console" href={`${props.row.return_origin ?? ""}/console`}>
        Back to the console
      </a>
    </p>
  );
}

function what(row: CheckoutView): string {
  return row.purpose === "topup"
    ? `Balance top-up for wallet ${row.wallet_id}`
    : `Cloud restore, job ${row.job_id}`;
}

export function PayPage(props: { row: CheckoutView; token: string; expired: boolean }) {
  const { row, token } = props;
  const base = `/checkout/${encodeURIComponent(row.id)}`;
  const q = `?token=${encodeURIComponent(token)}`;
  const payable = row.status === "open" && !props.expired;
  return (
    <Page title="Checkout" testMode>
      <h1>Checkout</h1>
      <p>{what(row)}</p>
      <p class="amount" data-testid="amount">
        {displayCents(row.amount_cents)}
      </p>
      {row.email ? (
        <p class="muted">
          Receipt to <Owned text={row.email} />
        </p>
      ) : null}
      {payable ? (
        <div>
          <form method="post" action={`${base}/pay${q}`}>
            <button class="pay" type="submit" id="pay">
              Pay {displayCents(row.amount_cents)} (test)
            </button>
          </form>
          <form method="post" action={`${base}/cancel${q}`}>
            <button type="submit" id="cancel">
              Cancel
            </button>
          </form>
          <p class="muted">
            Expires {new Date(row.expires_at).toISOString()}. No card is needed in test mode.
          </p>
        </div>
      ) : (
        <p id="status">{statusSentence(row, props.expired)}</p>
      )}
    </Page>
  );
}

export function statusSentence(row: CheckoutView, expired: boolean): string {
  if (row.status === "paid") return "This checkout is paid. Thank you.";
  if (row.status === "refunded") return "This checkout was paid and has been refunded.";
  if (row.status === "cancelled") return "This checkout was cancelled; nothing was charged.";
  if (row.status === "expired" || expired) return "This checkout has expired; nothing was charged.";
  return "This checkout is waiting for payment.";
}

export function DonePage(props: { row: CheckoutView; testMode: boolean }) {
  const { row } = props;
  const paid = row.status === "paid" || row.status === "refunded";
  const next =
    row.purpose === "topup"
      ? "The amount is on the wallet's balance now."
      : `Your restore has started; follow it with GET /cloud/jobs/${row.job_id}.`;
  return (
    <Page
      title={paid ? "Paid" : "Confirming payment"}
      testMode={props.testMode}
      refreshSec={paid ? undefined : 3}
    >
      <h1 id="result">{paid ? "Payment received" : "Confirming your payment…"}</h1>
      <p class="amount">{displayCents(row.amount_cents)}</p>
      <p>{what(row)}</p>
      <p>{paid ? next : "This page refreshes by itself once the payment is confirmed."}</p>
      <BackToConsole row={row} />
    </Page>
  );
}

export function CancelledPage(props: { row: CheckoutView; testMode: boolean }) {
  return (
    <Page title="Cancelled" testMode={props.testMode}>
      <h1 id="result">Checkout cancelled</h1>
      <p>Nothing was charged. You can close this page, or ask for a new checkout link.</p>
      <BackToConsole row={props.row} />
    </Page>
  );
}

export function NotFoundPage() {
  return (
    <Page title="Not found">
      <h1>Checkout not found</h1>
      <p>Check the link, or ask for a new checkout link.</p>
    </Page>
  );
}

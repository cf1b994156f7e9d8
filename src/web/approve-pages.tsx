/**
 * The owner's approval pages: one purchase an asking key waits for (/approve/{id}: who asks,
 * what for, the price; Approve and Decline, one tap each, phone-sized), and the owner's list of
 * them (/console/approvals). Plain HTML, no scripts, as every page of the console.
 */

import type { getApproval } from "../api/contracts/approvals.js";
import type { OutputOf } from "../api/operation.js";
import { dollars, when } from "./console-format.js";
import { Hidden } from "./form-error.js";
import { Page } from "./layout.js";

/** An approval as the operations answer it. */
export type ApprovalView = OutputOf<typeof getApproval>["approval"];

/** Who asks, as the owner named the key ("my assistant", or the connected app). */
const asker = (a: ApprovalView) =>
  `${a.agent_key.label || a.agent_key.id}${a.agent_key.kind === "connected_app" ? " (connected app)" : ""}`;

/** What the page says of a purchase that is no longer waiting. */
function stateWords(a: ApprovalView): string {
  if (a.status === "approved") {
    return a.used
      ? "Approved, and bought."
      : "Approved: the agent may now make this purchase once.";
  }
  if (a.status === "declined") return "Declined: nothing will be charged.";
  if (a.status === "expired") return "Expired: nobody answered in time; nothing was charged.";
  return "Waiting for your answer.";
}

/** One purchase and the owner's two buttons (while it waits). */
export function ApprovePage(props: {
  a: ApprovalView;
  csrf: string;
  done?: string;
  error?: string;
}) {
  const { a } = props;
  const action = `/approve/${a.id}`;
  return (
    <Page title="Approve a purchase">
      <h1>{asker(a)} asks to buy</h1>
      <p id="question" class="host">
        {a.question}
      </p>
      <p class="amount" id="price">
        {dollars(a.price_cents)}
      </p>
      <p class="muted">
        From your kinora balance, asked {when(a.created_at)}; answer by {when(a.expires_at)}.
      </p>
      {props.done ? (
        <p class="ok" role="status" id="done">
          {props.done}
        </p>
      ) : null}
      {props.error ? (
        <p class="error" role="alert" id="refused">
          {props.error}
        </p>
      ) : null}
      <p class="state" id="state">
        {stateWords(a)}
      </p>
      {a.status === "pending" ? (
        <div>
          <form method="post" action={action}>
            <Hidden csrf={props.csrf} />
            <input type="hidden" name="decision" value="approve" />
            <button type="submit" class="pay" id="approve">
              Approve {dollars(a.price_cents)}
            </button>
          </form>
          <form method="post" action={action}>
            <Hidden csrf={props.csrf} />
            <input type="hidden" name="decision" value="decline" />
            <button type="submit" id="decline">
              Decline
            </button>
          </form>
        </div>
      ) : null}
      <p>
        <a href="/console/approvals">All approvals</a> · <a href="/console">Console</a>
      </p>
    </Page>
  );
}

/** An id that names nothing of this wallet (or a refusal that leaves nothing to show). */
export function ApprovalMissingPage(props: { detail: string }) {
  return (
    <Page title="Approve a purchase">
      <h1>No such purchase</h1>
      <p class="error" role="alert" id="refused">
        {props.detail}
      </p>
      <p class="muted">
        An approval link works only for the owner of the wallet whose key asked: sign in with that
        wallet's key.
      </p>
      <p>
        <a href="/console">Console</a>
      </p>
    </Page>
  );
}

/** The owner's approvals, newest first: pending ones link to their page. */
export function ApprovalsListPage(props: { approvals: readonly ApprovalView[] }) {
  return (
    <Page title="Approvals" wide>
      <nav>
        <a href="/console">Console</a>
      </nav>
      <h1>Purchase approvals</h1>
      <p class="muted">
        What your agent keys and connected apps that must ask asked to buy: pending, approved,
        declined and expired.
      </p>
      {props.approvals.length === 0 ? (
        <p id="no-approvals">No purchase has been asked for yet.</p>
      ) : (
        <table id="approvals">
          <thead>
            <tr>
              <th>Asked</th>
              <th>Who</th>
              <th>What</th>
              <th>Price</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {props.approvals.map((a) => (
              <tr data-approval={a.id}>
                <td data-label="Asked">{when(a.created_at)}</td>
                <td data-label="Who">{asker(a)}</td>
                <td data-label="What">{a.question}</td>
                <td data-label="Price">{dollars(a.price_cents)}</td>
                <td data-label="Status" class="state">
                  {a.status === "pending" ? (
                    <a href={`/approve/${a.id}`}>pending: answer</a>
                  ) : a.status === "approved" && a.used ? (
                    "approved, bought"
                  ) : (
                    a.status
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}

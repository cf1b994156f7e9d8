/**
 * The owner's console, server-rendered, no JavaScript: balance and a card top-up, a spending
 * chart (console-spending.tsx), agent keys and connected apps (create with a limit — the secret
 * shown once —, see spent/remaining, change the limit, revoke after a confirmation), every job
 * kind's jobs with status, progress, queue estimate, expiry, pictures, download links and a
 * Cancel (console-jobs.tsx), webhook endpoints with their deliveries (console-webhooks.tsx), and
 * the ledger. Everything shown is an operation's output (console-dashboard.ts reads them); a
 * refused action is said beside its form. Money is shown in dollars; a restore's quality by its
 * label, everywhere.
 * Tables fold into labelled rows on narrow screens (layout.tsx): every cell carries its label.
 */

import type { getSpending, listLedger } from "../api/contracts/ledger.js";
import type { OutputOf } from "../api/operation.js";
import type { AgentKeyView, WalletView } from "../api/schemas.js";
import type { WebhookEndpointView } from "../api/webhooks.js";
import { dollars, when } from "./console-format.js";
import { type JobList, type JobPictures, Jobs } from "./console-jobs.js";
import { Keys, keyName } from "./console-keys.js";
import { SpendingChart } from "./console-spending.js";
import { Webhooks } from "./console-webhooks.js";
import { type FormError, FormErrorText, Hidden, typed } from "./form-error.js";
import { Page, WalletKeyField } from "./layout.js";
import { ownedText } from "./owned-text.js";

export { keyName } from "./console-keys.js";

export function SignInPage(props: { csrf: string; error?: string; next?: string }) {
  return (
    <Page title="Console">
      <h1>kinora console</h1>
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
      <form method="post" action="/console/signin">
        <Hidden csrf={props.csrf} />
        {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
        <WalletKeyField />
        <button type="submit" class="pay">
          Sign in
        </button>
      </form>
      <p class="muted">The wallet key (pmk_…) was shown once when the balance was created.</p>
      <h2>No balance yet?</h2>
      <p>
        A balance holds the money your agents and apps may spend. It starts at $0.00; its wallet key
        is shown once, on the next page.
      </p>
      <form method="post" action="/console/create">
        <Hidden csrf={props.csrf} />
        <button type="submit" id="create-balance">
          Create a new balance
        </button>
      </form>
    </Page>
  );
}

/** The Revoke step that asks first: what the key is, what revoking does, and a named button. */
export function RevokeConfirmPage(props: { k: AgentKeyView; csrf: string }) {
  const { k } = props;
  const name = keyName(k);
  const app = k.kind === "connected_app";
  return (
    <Page title="Revoke a key">
      <h1>
        Revoke <bdi>{name}</bdi>?
      </h1>
      <p>
        {app ? "This connected app" : "This agent key"} has spent {dollars(k.spent_cents)} of its{" "}
        {dollars(k.limit_cents)} limit.
      </p>
      <p>
        Once revoked it stops working at once: every request with it is refused
        {app ? ", and the app's sign-in tokens with it" : ""}. Jobs it started keep running. This
        cannot be undone; you can create a new key later.
      </p>
      <form method="post" action={`/console/keys/${k.id}/revoke`}>
        <Hidden csrf={props.csrf} />
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" class="pay" id="confirm-revoke">
          Revoke <bdi>{name}</bdi>
        </button>
      </form>
      <a class="button" href="/console#keys" id="keep">
        Keep it
      </a>
    </Page>
  );
}

/** What GET /wallet/ledger answers. */
type LedgerPage = OutputOf<typeof listLedger>;

function Ledger(props: { ledger: LedgerPage }) {
  return (
    <section id="ledger">
      <h2>Ledger</h2>
      <table class="ledger">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Kind</th>
            <th scope="col">Amount</th>
            <th scope="col">What</th>
          </tr>
        </thead>
        <tbody>
          {props.ledger.entries.map((e) => (
            <tr data-entry={String(e.id)}>
              <td data-label="When">{when(e.created_at)}</td>
              <td data-label="Kind">{e.kind.replace("_", " ")}</td>
              <td data-label="Amount" class="amount-cell">
                {e.display}
              </td>
              <td data-label="What">{ownedText(e.reason)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.ledger.entries.length === 0 ? <p class="muted">Nothing yet.</p> : null}
      {props.ledger.next_before !== null ? (
        <p>
          <a href={`/console?ledger_before=${props.ledger.next_before}#ledger`} id="older">
            Older entries
          </a>
        </p>
      ) : null}
    </section>
  );
}

/** The statuses console pages answer with. */
export type Status = 200 | 400 | 401 | 402 | 403 | 404 | 409 | 422 | 429 | 502 | 503;

/** What the console's dashboard shows: the operations' outputs, and what an action said. */
export interface DashboardView {
  wallet: WalletView;
  keys: AgentKeyView[];
  /** Each job kind's jobs, newest first. */
  jobs: JobList[];
  /** Done jobs' pictures, where their kind makes them. */
  pictures: ReadonlyMap<string, JobPictures>;
  /** Where those pictures are stored (their console links redirect there): the page's img-src. */
  imageOrigins: readonly string[];
  spending: OutputOf<typeof getSpending>;
  ledger: LedgerPage;
  /** The wallet's webhook endpoints; null when this server serves no webhooks. */
  endpoints: WebhookEndpointView[] | null;
  csrf: string;
  /** What an action did. */
  done?: string;
  newSecret?: { label: string; key: string };
  newWebhookSecret?: { url: string; secret: string };
  newSigningSecret?: string;
  /** A form refused: its message and values go back beside that form. */
  formError?: FormError;
  /** Whether webhook receivers on this machine are accepted (ALLOW_LOOPBACK_URLS). */
  allowLoopbackReceivers: boolean;
}

/** The card top-up: an amount in dollars; a refusal beside it, with what was typed. */
function TopUp(props: { csrf: string; error: FormError | undefined }) {
  const refused = props.error?.form === "topup";
  return (
    <form method="post" action="/console/topup#topup" id="topup">
      <Hidden csrf={props.csrf} />
      <FormErrorText error={props.error} form="topup" id="topup-error" />
      <label for="topup_dollars">Add money by card</label>${" "}
      <input
        id="topup_dollars"
        name="amount_dollars"
        inputmode="decimal"
        value={typed(props.error, "topup", "amount_dollars") ?? "20.00"}
        required
        aria-invalid={refused ? "true" : undefined}
        aria-describedby={refused ? "topup-error" : undefined}
      />{" "}
      <button type="submit" class="pay">
        Top up
      </button>
    </form>
  );
}

export function DashboardPage(props: { v: DashboardView }) {
  const v = props.v;
  return (
    <Page title="Console" wide>
      <nav>
        <a href="#spending">Spending</a>
        <a href="#keys">Keys</a>
        <a href="#jobs">Jobs</a>
        {v.endpoints ? <a href="#webhooks">Webhooks</a> : null}
        <a href="#ledger">Ledger</a>
        <a href="/console/approvals">Approvals</a>
      </nav>
      <form method="post" action="/console/signout" class="signout">
        <Hidden csrf={v.csrf} />
        <button type="submit">Sign out</button>
      </form>
      <h1>Your balance</h1>
      <p class="amount" id="balance">
        {dollars(v.wallet.balance_cents)}
      </p>
      <p class="muted">
        {v.wallet.wallet_id}
        {v.wallet.paused ? " — paused by the operator: it can be topped up but cannot spend." : ""}
      </p>
      {v.done ? (
        <p class="ok" role="status" id="done">
          {v.done}
        </p>
      ) : null}
      <TopUp csrf={v.csrf} error={v.formError} />
      <SpendingChart
        spending={v.spending}
        keys={v.keys.map((k) => ({ id: k.id, name: keyName(k) }))}
      />
      <Keys keys={v.keys} csrf={v.csrf} newSecret={v.newSecret} formError={v.formError} />
      <Jobs lists={v.jobs} pictures={v.pictures} csrf={v.csrf} formError={v.formError} />
      {v.endpoints ? (
        <Webhooks
          endpoints={v.endpoints}
          csrf={v.csrf}
          newSecret={v.newWebhookSecret}
          newSigningSecret={v.newSigningSecret}
          formError={v.formError}
          allowLoopback={v.allowLoopbackReceivers}
        />
      ) : null}
      <Ledger ledger={v.ledger} />
    </Page>
  );
}

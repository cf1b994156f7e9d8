/**
 * The owner's console, server-rendered, no JavaScript: balance and a card top-up, agent keys
 * and connected apps (create with a limit — the secret shown once — see spent/remaining,
 * revoke), restore jobs and clips with status, progress and download links, webhook
 * endpoints with their deliveries (console-webhooks.tsx), and the ledger.
 * Money is shown in dollars.
 */

import type { ClipView } from "../api/clips.js";
import type { RestoreJobView } from "../api/restore.js";
import type { AgentKeyView, WalletView } from "../api/schemas.js";
import type { WebhookEndpointView } from "../api/webhooks.js";
import { LABEL_MAX_LENGTH } from "../domain/limits.js";
import { displayCents } from "../domain/money.js";
import { inertName } from "../domain/text.js";
import type { LedgerPage } from "../services/ledger-view.js";
import { Webhooks } from "./console-webhooks.js";
import { Page } from "./layout.js";

const dollars = (cents: number) => displayCents(cents);
const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "—");
const pct = (p: number | null) => (p === null ? "" : ` ${Math.round(p * 100)}%`);

export function SignInPage(props: { csrf: string; error?: string }) {
  return (
    <Page title="Console">
      <h1>kinora console</h1>
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
      <form method="post" action="/console/signin">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="wallet_key">Wallet key</label>
        <input
          id="wallet_key"
          name="wallet_key"
          type="password"
          autocomplete="off"
          placeholder="pmk_…"
          required
        />
        <button type="submit" class="pay">
          Sign in
        </button>
      </form>
      <p class="muted">The wallet key (pmk_…) was shown once when the balance was created.</p>
    </Page>
  );
}

function Keys(props: { keys: AgentKeyView[]; csrf: string }) {
  return (
    <section id="keys">
      <h2>Agent keys and connected apps</h2>
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>Limit</th>
            <th>Spent</th>
            <th>Left</th>
            <th>Asks first</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {props.keys.map((k) => (
            <tr data-key={k.id}>
              <td>
                <bdi>{inertName(k.label, LABEL_MAX_LENGTH) || k.id}</bdi>
                {k.connected_app ? (
                  <div class="muted">
                    returns to <bdi>{k.connected_app.redirect_host}</bdi>
                  </div>
                ) : null}
              </td>
              <td>{k.kind === "connected_app" ? "connected app" : "agent key"}</td>
              <td>{dollars(k.limit_cents)}</td>
              <td>{dollars(k.spent_cents)}</td>
              <td>{dollars(k.remaining_cents)}</td>
              <td>{k.ask_before_spending ? "yes" : "no"}</td>
              <td>
                {k.revoked ? (
                  "revoked"
                ) : (
                  <form method="post" action={`/console/keys/${k.id}/revoke`}>
                    <input type="hidden" name="csrf" value={props.csrf} />
                    <button type="submit">Revoke</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.keys.length === 0 ? <p class="muted">No agent keys or connected apps yet.</p> : null}
      <h3>New agent key</h3>
      <form method="post" action="/console/keys">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="label">Label</label>
        <input id="label" name="label" type="text" maxlength={100} placeholder="my assistant" />
        <label for="limit_dollars">Spending limit</label>${" "}
        <input id="limit_dollars" name="limit_dollars" inputmode="decimal" value="5.00" required />
        <label>
          <input type="checkbox" name="trust" value="1" /> Spend within the limit without asking
        </label>
        <p>
          <button type="submit" class="pay">
            Create key
          </button>
        </p>
      </form>
    </section>
  );
}

function Jobs(props: { restores: RestoreJobView[]; clips: ClipView[] }) {
  return (
    <section id="jobs">
      <h2>Restore jobs</h2>
      <table>
        <tbody>
          {props.restores.map((j) => (
            <tr data-job={j.id}>
              <td>{j.filename}</td>
              <td>{j.quality_label}</td>
              <td class="status">
                {j.status}
                {j.status === "processing" ? pct(j.progress) : ""}
              </td>
              <td>{j.display_price}</td>
              <td>{when(j.created_at)}</td>
              <td>{j.download_url ? <a href={j.download_url}>Download</a> : (j.error ?? "")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.restores.length === 0 ? <p class="muted">No restores yet.</p> : null}
      <h2>Clips</h2>
      <table>
        <tbody>
          {props.clips.map((j) => (
            <tr data-job={j.id}>
              <td>{j.prompt.slice(0, 60)}</td>
              <td>{j.size}</td>
              <td class="status">
                {j.status}
                {j.status === "processing" ? pct(j.progress) : ""}
              </td>
              <td>{dollars(j.amount_cents)}</td>
              <td>{when(j.created_at)}</td>
              <td>{j.download_url ? <a href={j.download_url}>Download</a> : (j.error ?? "")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.clips.length === 0 ? <p class="muted">No clips yet.</p> : null}
    </section>
  );
}

function Ledger(props: { ledger: LedgerPage }) {
  return (
    <section id="ledger">
      <h2>Ledger</h2>
      <table>
        <thead>
          <tr>
            <th>When</th>
            <th>Kind</th>
            <th>Amount</th>
            <th>What</th>
          </tr>
        </thead>
        <tbody>
          {props.ledger.entries.map((e) => (
            <tr data-entry={String(e.id)}>
              <td>{when(e.created_at)}</td>
              <td>{e.kind}</td>
              <td class="amount-cell">{e.display}</td>
              <td>{e.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
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

/** What the console's dashboard shows. */
export interface DashboardView {
  wallet: WalletView;
  keys: AgentKeyView[];
  restores: RestoreJobView[];
  clips: ClipView[];
  ledger: LedgerPage;
  csrf: string;
  notice?: string;
  newSecret?: { label: string; key: string };
  endpoints: WebhookEndpointView[];
  newWebhookSecret?: { url: string; secret: string };
}

export function DashboardPage(props: { v: DashboardView }) {
  const v = props.v;
  return (
    <Page title="Console" wide>
      <nav>
        <a href="#keys">Keys</a>
        <a href="#jobs">Jobs</a>
        <a href="#webhooks">Webhooks</a>
        <a href="#ledger">Ledger</a>
      </nav>
      <form method="post" action="/console/signout" style="float:right">
        <input type="hidden" name="csrf" value={v.csrf} />
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
      {v.notice ? (
        <p class="error" role="status">
          {v.notice}
        </p>
      ) : null}
      {v.newSecret ? (
        <section id="new-key">
          <h3>New key “{v.newSecret.label}” — shown only now</h3>
          <code class="secret" id="new-secret">
            {v.newSecret.key}
          </code>
        </section>
      ) : null}
      <form method="post" action="/console/topup">
        <input type="hidden" name="csrf" value={v.csrf} />
        <label for="topup_dollars">Add money by card</label>${" "}
        <input
          id="topup_dollars"
          name="amount_dollars"
          inputmode="decimal"
          value="20.00"
          required
        />{" "}
        <button type="submit" class="pay">
          Top up
        </button>
      </form>
      <Keys keys={v.keys} csrf={v.csrf} />
      <Jobs restores={v.restores} clips={v.clips} />
      <Webhooks endpoints={v.endpoints} csrf={v.csrf} newSecret={v.newWebhookSecret} />
      <Ledger ledger={v.ledger} />
    </Page>
  );
}

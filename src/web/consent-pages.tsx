/**
 * The consent page of connected apps: which app asks (its self-declared name) and — prominent,
 * because a name proves nothing and a host does — where it will return; what it may do; the
 * spending limit; the owner's standing agreement; Allow and Deny. Without a session the same
 * page offers sign-in with the wallet key, or a new balance. Works without JavaScript.
 */
import type { Child } from "hono/jsx";
import { displayCents } from "../domain/money.js";
import { Page, WalletKeyField } from "./layout.js";
import { Owned } from "./owned-text.js";

/** What the consent page shows about the app asking. */
export interface ConsentView {
  clientName: string;
  redirectHost: string;
  clientUri: string | null;
  /** Signed authorization request, carried by every form. */
  req: string;
  csrf: string;
  signedIn: { walletId: string; balanceCents: number } | null;
  error?: string;
  /** What was typed into the decision form, put back beside its refusal. */
  typed?: { limitDollars: string; trust: boolean; askAboveDollars: string };
}

const DEFAULT_LIMIT = "5.00";

function Hidden(props: { v: ConsentView }) {
  return (
    <>
      <input type="hidden" name="csrf" value={props.v.csrf} />
      <input type="hidden" name="req" value={props.v.req} />
    </>
  );
}

function Who(props: { v: ConsentView }) {
  return (
    <section>
      <h1>
        Connect <bdi id="client-name">{props.v.clientName}</bdi> to kinora?
      </h1>
      <p class="host">
        It will return to <strong id="redirect-host">{props.v.redirectHost}</strong>
      </p>
      <p class="muted">
        The name “<bdi>{props.v.clientName}</bdi>” is what the app calls itself; check that the
        address above is the app you are connecting.
        {props.v.clientUri ? (
          <>
            {" "}
            The app says its home is <Owned text={props.v.clientUri} />.
          </>
        ) : (
          ""
        )}
      </p>
      <p>
        If you allow it, it can restore videos and make clips paid from your balance,{" "}
        <strong>up to the spending limit you set below</strong> — never more — and see only the jobs
        it started. You can revoke it at any time in the console.
      </p>
    </section>
  );
}

function SignIn(props: { v: ConsentView }) {
  return (
    <section>
      <h2>Sign in to your balance</h2>
      <form method="post" action="/oauth/authorize">
        <Hidden v={props.v} />
        <WalletKeyField />
        <button type="submit" name="action" value="signin" class="pay">
          Sign in
        </button>
      </form>
      <p class="muted">No balance yet?</p>
      <form method="post" action="/oauth/authorize">
        <Hidden v={props.v} />
        <button type="submit" name="action" value="create">
          Create a new balance
        </button>
      </form>
    </section>
  );
}

function Decide(props: { v: ConsentView; signedIn: NonNullable<ConsentView["signedIn"]> }) {
  return (
    <section>
      <p class="muted">
        Signed in to {props.signedIn.walletId} (balance {displayCents(props.signedIn.balanceCents)}
        ).
      </p>
      <form method="post" action="/oauth/authorize">
        <Hidden v={props.v} />
        <label for="limit_dollars">Spending limit</label>
        <div>
          ${" "}
          <input
            id="limit_dollars"
            name="limit_dollars"
            inputmode="decimal"
            value={props.v.typed?.limitDollars ?? DEFAULT_LIMIT}
            required
            aria-invalid={props.v.error ? "true" : undefined}
            aria-describedby={props.v.error ? "consent-error" : undefined}
          />
        </div>
        <p class="muted">The most this app may ever spend in total ($0.01 to $1,000.00).</p>
        <fieldset>
          <legend>Purchases</legend>
          <label>
            <input type="radio" name="spending" value="ask" checked={!props.v.typed?.trust} /> Ask
            me before each purchase
          </label>
          <div>
            <label for="ask_above_dollars">…only above (dollars, optional)</label> ${" "}
            <input
              id="ask_above_dollars"
              name="ask_above_dollars"
              inputmode="decimal"
              class="short"
              placeholder="every purchase"
              value={props.v.typed?.askAboveDollars ?? ""}
              aria-describedby="ask-above-help"
            />
            <div class="muted" id="ask-above-help">
              Purchases at or below this go ahead without asking you; empty: ask every time.
            </div>
          </div>
          <br />
          <label>
            <input type="radio" name="spending" value="trust" checked={props.v.typed?.trust} />{" "}
            Spend within the limit without asking
          </label>
        </fieldset>
        <p>
          <button type="submit" name="action" value="allow" class="pay" id="allow">
            Allow
          </button>
          <button type="submit" name="action" value="deny" id="deny">
            Deny
          </button>
        </p>
      </form>
    </section>
  );
}

export function ConsentPage(props: { v: ConsentView }) {
  const v = props.v;
  return (
    <Page title="Connect an app">
      <Who v={v} />
      {v.error ? (
        <p class="error" role="alert" id="consent-error">
          {v.error}
        </p>
      ) : null}
      {v.signedIn ? <Decide v={v} signedIn={v.signedIn} /> : <SignIn v={v} />}
    </Page>
  );
}

/** A new balance's wallet key, shown once, before the consent continues. */
export function NewWalletPage(props: { walletKey: string; continueUrl: string; walletId: string }) {
  return (
    <Page title="Save your wallet key">
      <h1>Save your wallet key</h1>
      <p>
        Your new balance {props.walletId} is ready. This is its <strong>wallet key</strong>: it is
        shown <strong>only now</strong>. Store it in your password manager — it signs you in to the
        console and manages your agent keys and connected apps.
      </p>
      <p>
        <code id="wallet-key" class="secret">
          {props.walletKey}
        </code>
      </p>
      <p>
        <a class="button pay" id="continue" href={props.continueUrl}>
          I saved it — continue
        </a>
      </p>
    </Page>
  );
}

/**
 * A problem kinora shows itself. `back`: a link to where the app asked to return, naming its
 * host — followed only if the person chooses to (an error never redirects by itself).
 */
export function ProblemPage(props: {
  title: string;
  back?: { href: string; host: string };
  children: Child;
}) {
  return (
    <Page title={props.title}>
      <h1>{props.title}</h1>
      <p id="problem">{props.children}</p>
      {props.back ? (
        <p>
          <a id="return" href={props.back.href} rel="noreferrer">
            Return to <bdi>{props.back.host}</bdi>
          </a>
        </p>
      ) : null}
    </Page>
  );
}

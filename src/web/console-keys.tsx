/**
 * The console's keys section: agent keys and connected apps with their limit (changed in place,
 * a refusal beside the change), what each spent and has left, whether it asks first, and Revoke
 * (which asks on a page of its own); then the form that creates one, with its secret — shown
 * once — or a refusal beside it.
 */
import type { AgentKeyView } from "../api/schemas.js";
import { LABEL_MAX_LENGTH } from "../domain/limits.js";
import { inertName } from "../domain/text.js";
import { dollars } from "./console-format.js";
import { type FormError, FormErrorText, Hidden, typed } from "./form-error.js";
import { Owned } from "./owned-text.js";

const plainDollars = (cents: number) => (cents / 100).toFixed(2);

/** A key's name as shown: its label made inert, or its id. */
export const keyName = (k: Pick<AgentKeyView, "label" | "id">) =>
  inertName(k.label, LABEL_MAX_LENGTH) || k.id;

/**
 * A key's limit and the form that changes it (folded until asked for); a refusal beside the
 * limit, with what was typed kept in the form.
 */
function LimitCell(props: { k: AgentKeyView; csrf: string; error: FormError | undefined }) {
  const { k, csrf } = props;
  const name = keyName(k);
  const form = `limit:${k.id}`;
  const refused = props.error?.form === form;
  return (
    <td data-label="Limit" class="limit" id={`key-${k.id}`}>
      {dollars(k.limit_cents)}
      {refused ? (
        <p class="error" role="alert" id={`limit-error-${k.id}`}>
          Limit of <bdi>{name}</bdi> not changed: {props.error?.message}
        </p>
      ) : null}
      {k.revoked ? null : (
        <details open={refused ? true : undefined}>
          <summary>
            Change<span class="sr"> the limit of {name}</span>
          </summary>
          <form method="post" action={`/console/keys/${k.id}/limit#key-${k.id}`} class="limit-form">
            <Hidden csrf={csrf} />
            <label for={`limit-${k.id}`}>
              New limit<span class="sr"> of {name}</span>
            </label>
            ${" "}
            <input
              id={`limit-${k.id}`}
              name="limit_dollars"
              inputmode="decimal"
              class="short"
              value={typed(props.error, form, "limit_dollars") ?? plainDollars(k.limit_cents)}
              required
              aria-invalid={refused ? "true" : undefined}
              aria-describedby={refused ? `limit-error-${k.id}` : undefined}
            />{" "}
            <button type="submit">
              Save<span class="sr"> the limit of {name}</span>
            </button>
            <div class="muted">At least what it spent ({dollars(k.spent_cents)}).</div>
            {k.ask_before_spending ? (
              <>
                <label for={`ask-above-${k.id}`}>
                  Ask only above<span class="sr"> for {name}</span>
                </label>
                ${" "}
                <input
                  id={`ask-above-${k.id}`}
                  name="ask_above_dollars"
                  inputmode="decimal"
                  class="short"
                  value={
                    typed(props.error, form, "ask_above_dollars") ??
                    (k.ask_above_cents === null ? "" : plainDollars(k.ask_above_cents))
                  }
                />
                <div class="muted">Empty: ask before every purchase.</div>
              </>
            ) : null}
          </form>
        </details>
      )}
    </td>
  );
}

/** "yes", "no", or "above $1.00" when the owner set a threshold. */
function asksFirst(k: AgentKeyView): string {
  if (!k.ask_before_spending) return "no";
  return k.ask_above_cents === null ? "yes" : `above ${dollars(k.ask_above_cents)}`;
}

function KeyRow(props: { k: AgentKeyView; csrf: string; error: FormError | undefined }) {
  const { k, csrf } = props;
  const name = keyName(k);
  return (
    <tr data-key={k.id} class={k.revoked ? "revoked" : undefined}>
      <td data-label="Name">
        <bdi>{name}</bdi>
        {k.connected_app ? (
          <div class="muted">
            returns to <bdi>{k.connected_app.redirect_host}</bdi>
          </div>
        ) : null}
      </td>
      <td data-label="Kind">{k.kind === "connected_app" ? "connected app" : "agent key"}</td>
      <LimitCell k={k} csrf={csrf} error={props.error} />
      <td data-label="Spent">{dollars(k.spent_cents)}</td>
      <td data-label="Left" class="left">
        {k.revoked ? (
          <span class="state">revoked — can spend nothing</span>
        ) : (
          dollars(k.remaining_cents)
        )}
      </td>
      <td data-label="Asks first">{asksFirst(k)}</td>
      <td class="actions">
        {k.revoked ? (
          <span class="state">revoked</span>
        ) : (
          <form method="get" action={`/console/keys/${k.id}/revoke`}>
            <button type="submit">
              Revoke<span class="sr"> {name}</span>
            </button>
          </form>
        )}
      </td>
    </tr>
  );
}

/** The form that creates an agent key; the new secret (shown once) or a refusal beside it. */
function NewKeyForm(props: {
  csrf: string;
  newSecret?: { label: string; key: string } | undefined;
  error?: FormError | undefined;
}) {
  const { error } = props;
  const mine = error?.form === "key";
  return (
    <>
      <h3 id="new-key-form">New agent key</h3>
      {props.newSecret ? (
        <section id="new-key">
          <h4>
            New key “<Owned text={props.newSecret.label} />” — shown only now
          </h4>
          <code class="secret" id="new-secret">
            {props.newSecret.key}
          </code>
        </section>
      ) : null}
      <form method="post" action="/console/keys#new-key-form">
        <Hidden csrf={props.csrf} />
        <FormErrorText error={error} form="key" id="key-form-error" />
        <label for="label">Label</label>
        <input
          id="label"
          name="label"
          type="text"
          maxlength={100}
          placeholder="my assistant"
          value={typed(error, "key", "label")}
          aria-describedby={mine ? "key-form-error" : undefined}
        />
        <label for="limit_dollars">Spending limit</label>${" "}
        <input
          id="limit_dollars"
          name="limit_dollars"
          inputmode="decimal"
          value={typed(error, "key", "limit_dollars") ?? "5.00"}
          required
          aria-describedby={mine ? "key-form-error" : undefined}
        />
        <label>
          <input
            type="checkbox"
            name="trust"
            value="1"
            checked={typed(error, "key", "trust") === "1"}
          />{" "}
          Spend within the limit without asking
        </label>
        <label for="ask_above_dollars">Ask only above (dollars, optional)</label>${" "}
        <input
          id="ask_above_dollars"
          name="ask_above_dollars"
          inputmode="decimal"
          placeholder="every purchase"
          value={typed(error, "key", "ask_above_dollars")}
          aria-describedby="ask-above-help"
        />
        <div class="muted" id="ask-above-help">
          Purchases at or below this go ahead without asking you; empty: ask before every one.
        </div>
        <p>
          <button type="submit" class="pay">
            Create key
          </button>
        </p>
      </form>
    </>
  );
}

/** The keys section of the dashboard. */
export function Keys(props: {
  keys: AgentKeyView[];
  csrf: string;
  newSecret?: { label: string; key: string } | undefined;
  formError?: FormError | undefined;
}) {
  return (
    <section id="keys">
      <h2>Agent keys and connected apps</h2>
      <FormErrorText error={props.formError} form="keys" id="keys-error" />
      {props.keys.length === 0 ? (
        <p class="muted">No agent keys or connected apps yet.</p>
      ) : (
        <table class="keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Limit</th>
              <th scope="col">Spent</th>
              <th scope="col">Left</th>
              <th scope="col">Asks first</th>
              <th scope="col">Revoke</th>
            </tr>
          </thead>
          <tbody>
            {props.keys.map((k) => (
              <KeyRow k={k} csrf={props.csrf} error={props.formError} />
            ))}
          </tbody>
        </table>
      )}
      <NewKeyForm csrf={props.csrf} newSecret={props.newSecret} error={props.formError} />
    </section>
  );
}

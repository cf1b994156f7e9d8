/**
 * The console's webhooks section: the form that registers an endpoint first (its secret shown
 * once beside it, like a key's; a refusal beside it too, with what was typed kept), then the
 * wallet's endpoints with their state (a disabled one says why), their latest deliveries
 * (state, attempts, next try, last answer), and a test-event and a delete button each (a
 * refusal beside them); then the wallet's signing secret for jobs' own webhooks, rotated here.
 */
import type { WebhookDeliveryView, WebhookEndpointView } from "../api/webhooks.js";
import { WEBHOOK_EVENT_TYPES } from "../domain/webhooks.js";
import { checked, type FormError, FormErrorText, Hidden, typed } from "./form-error.js";
import { Owned, ownedText } from "./owned-text.js";

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 19) : "—");

function Deliveries(props: { deliveries: WebhookDeliveryView[] }) {
  if (props.deliveries.length === 0) return <p class="muted">No deliveries yet.</p>;
  return (
    <table class="deliveries">
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">State</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
          <th scope="col">Next try</th>
        </tr>
      </thead>
      <tbody>
        {props.deliveries.map((d) => (
          <tr data-delivery={d.id}>
            <td data-label="Event">
              {d.type}
              <div class="muted">{d.event_id}</div>
            </td>
            <td data-label="State">{d.state}</td>
            <td data-label="Attempts">{d.attempts}</td>
            <td data-label="Last answer">{d.last_status_code ?? d.last_error ?? "—"}</td>
            <td data-label="Next try">{when(d.next_attempt_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Endpoint(props: { e: WebhookEndpointView; csrf: string; error: FormError | undefined }) {
  const { e, csrf } = props;
  return (
    <div class="endpoint" data-endpoint={e.id} id={`endpoint-${e.id}`}>
      <h4>
        <Owned text={e.url} /> <span class="muted">({e.status})</span>
      </h4>
      {e.description ? (
        <p class="description">
          <Owned text={e.description} />
        </p>
      ) : null}
      <p class="muted">Events: {e.events.join(", ")}</p>
      {e.disabled_reason ? <p class="error">Disabled: {e.disabled_reason}</p> : null}
      {e.failing_since && !e.disabled_at ? (
        <p class="error">Every delivery has failed since {when(e.failing_since)}.</p>
      ) : null}
      <Deliveries deliveries={e.deliveries} />
      <FormErrorText error={props.error} form={`endpoint:${e.id}`} id={`endpoint-error-${e.id}`} />
      <form
        method="post"
        action={`/console/webhooks/${e.id}/test#endpoint-${e.id}`}
        style="display:inline"
      >
        <Hidden csrf={csrf} />
        <button type="submit">
          Send test event<span class="sr"> to {ownedText(e.url)}</span>
        </button>
      </form>{" "}
      <form
        method="post"
        action={`/console/webhooks/${e.id}/delete#endpoint-${e.id}`}
        style="display:inline"
      >
        <Hidden csrf={csrf} />
        <button type="submit">
          Delete<span class="sr"> the endpoint {ownedText(e.url)}</span>
        </button>
      </form>
    </div>
  );
}

/**
 * The wallet's own signing secret, which signs deliveries to a job's webhook_url: rotated here,
 * the new one shown once beside the button.
 */
function SigningSecret(props: {
  csrf: string;
  secret?: string | undefined;
  error?: FormError | undefined;
}) {
  return (
    <>
      <h3 id="signing-secret">Signing secret for jobs' own webhooks</h3>
      <p class="muted">
        Deliveries to a job's webhook_url are signed with the wallet's secret (endpoints have their
        own). Rotating it signs every delivery from now on with a new one; the old one stops at
        once.
      </p>
      <FormErrorText error={props.error} form="secret" id="secret-error" />
      {props.secret ? (
        <p id="new-signing-secret">
          The new signing secret — shown only now:{" "}
          <code class="secret" id="new-signing-secret-value">
            {props.secret}
          </code>
        </p>
      ) : null}
      <form method="post" action="/console/webhooks/secret/rotate#signing-secret">
        <Hidden csrf={props.csrf} />
        <button type="submit">Rotate the signing secret</button>
      </form>
    </>
  );
}

/** Development only: how a receiver on this machine is allowed, and whether it is here. */
function LocalReceivers(props: { allowed: boolean }) {
  return (
    <p class="muted" id="webhook_url_help">
      https to a public address.{" "}
      {props.allowed
        ? "This server also accepts a receiver on this machine (http://127.0.0.1:PORT/…): ALLOW_LOOPBACK_URLS is on, for development."
        : "For a receiver on this machine in development (http://127.0.0.1:PORT/…), start the server with ALLOW_LOOPBACK_URLS=1."}
    </p>
  );
}

function NewEndpointForm(props: { csrf: string; error?: FormError; allowLoopback: boolean }) {
  const { error } = props;
  const mine = error?.form === "webhook";
  const events = checked(error, "webhook", "events");
  return (
    <form method="post" action="/console/webhooks#new-endpoint">
      <Hidden csrf={props.csrf} />
      <FormErrorText error={error} form="webhook" id="webhook-form-error" />
      <label for="webhook_url">HTTPS URL</label>
      <input
        id="webhook_url"
        name="url"
        type="url"
        maxlength={2048}
        required
        value={typed(error, "webhook", "url")}
        aria-invalid={mine ? "true" : undefined}
        aria-describedby={mine ? "webhook-form-error webhook_url_help" : "webhook_url_help"}
      />
      <LocalReceivers allowed={props.allowLoopback} />
      <fieldset>
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label>
            <input
              type="checkbox"
              name="events"
              value={type}
              checked={
                events ? events.includes(type) : type !== "job.started" && type !== "job.progress"
              }
            />{" "}
            {type}
          </label>
        ))}
      </fieldset>
      <p>
        <button type="submit">Add endpoint</button>
      </p>
    </form>
  );
}

export function Webhooks(props: {
  endpoints: WebhookEndpointView[];
  csrf: string;
  newSecret?: { url: string; secret: string } | undefined;
  newSigningSecret?: string | undefined;
  formError?: FormError | undefined;
  allowLoopback: boolean;
}) {
  return (
    <section id="webhooks">
      <h2>Webhooks</h2>
      <FormErrorText error={props.formError} form="webhooks" id="webhooks-error" />
      <h3 id="new-endpoint">New endpoint</h3>
      {props.newSecret ? (
        <p id="new-webhook">
          Signing secret of <Owned text={props.newSecret.url} /> — shown only now:{" "}
          <code class="secret" id="new-webhook-secret">
            {props.newSecret.secret}
          </code>
        </p>
      ) : null}
      <NewEndpointForm
        csrf={props.csrf}
        error={props.formError}
        allowLoopback={props.allowLoopback}
      />
      <h3>Endpoints</h3>
      {props.endpoints.map((e) => (
        <Endpoint e={e} csrf={props.csrf} error={props.formError} />
      ))}
      {props.endpoints.length === 0 ? <p class="muted">No webhook endpoints yet.</p> : null}
      <SigningSecret csrf={props.csrf} secret={props.newSigningSecret} error={props.formError} />
    </section>
  );
}

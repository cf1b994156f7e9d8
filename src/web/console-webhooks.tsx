/**
 * The console's webhooks section: the wallet's endpoints with their state (a disabled one says
 * why), their latest deliveries (state, attempts, next try, last answer), a test-event and a
 * delete button each, and the form that registers one (its secret shown once, like a key's).
 */
import type { WebhookDeliveryView, WebhookEndpointView } from "../api/webhooks.js";
import { WEBHOOK_EVENT_TYPES } from "../domain/webhooks.js";

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

function Endpoint(props: { e: WebhookEndpointView; csrf: string }) {
  const { e, csrf } = props;
  return (
    <div class="endpoint" data-endpoint={e.id}>
      <h3>
        {e.url} <span class="muted">({e.status})</span>
      </h3>
      {e.description ? <p>{e.description}</p> : null}
      <p class="muted">Events: {e.events.join(", ")}</p>
      {e.disabled_reason ? <p class="error">Disabled: {e.disabled_reason}</p> : null}
      {e.failing_since && !e.disabled_at ? (
        <p class="error">Every delivery has failed since {when(e.failing_since)}.</p>
      ) : null}
      <Deliveries deliveries={e.deliveries} />
      <form method="post" action={`/console/webhooks/${e.id}/test`} style="display:inline">
        <input type="hidden" name="csrf" value={csrf} />
        <button type="submit">
          Send test event<span class="sr"> to {e.url}</span>
        </button>
      </form>{" "}
      <form method="post" action={`/console/webhooks/${e.id}/delete`} style="display:inline">
        <input type="hidden" name="csrf" value={csrf} />
        <button type="submit">
          Delete<span class="sr"> the endpoint {e.url}</span>
        </button>
      </form>
    </div>
  );
}

export function Webhooks(props: {
  endpoints: WebhookEndpointView[];
  csrf: string;
  newSecret?: { url: string; secret: string } | undefined;
}) {
  return (
    <section id="webhooks">
      <h2>Webhooks</h2>
      {props.newSecret ? (
        <p id="new-webhook">
          Signing secret of {props.newSecret.url} — shown only now:{" "}
          <code class="secret" id="new-webhook-secret">
            {props.newSecret.secret}
          </code>
        </p>
      ) : null}
      {props.endpoints.map((e) => (
        <Endpoint e={e} csrf={props.csrf} />
      ))}
      {props.endpoints.length === 0 ? <p class="muted">No webhook endpoints yet.</p> : null}
      <h3>New endpoint</h3>
      <form method="post" action="/console/webhooks">
        <input type="hidden" name="csrf" value={props.csrf} />
        <label for="webhook_url">HTTPS URL</label>
        <input id="webhook_url" name="url" type="url" maxlength={2048} required />
        <fieldset>
          <legend>Events</legend>
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label>
              <input
                type="checkbox"
                name="events"
                value={type}
                checked={type !== "job.started" && type !== "job.progress"}
              />{" "}
              {type}
            </label>
          ))}
        </fieldset>
        <p>
          <button type="submit">Add endpoint</button>
        </p>
      </form>
    </section>
  );
}

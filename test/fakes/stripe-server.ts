/**
 * A fake of the slice of Stripe's API kinora uses, on 127.0.0.1, speaking the wire format the
 * real `stripe` SDK sends and expects: form-encoded bodies with bracket keys, Bearer auth,
 * Idempotency-Key replay, Stripe's error JSON, and webhooks signed with Stripe's scheme.
 * Stripe itself is out of reach in tests (no stripe-mock here), so this is the edge we fake.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import {
  badParam,
  checkSession,
  DAY_SEC,
  fail,
  header,
  int,
  type Json,
  missing,
  obj,
  ok,
  type Params,
  parseForm,
  type Reply,
  readBody,
  str,
} from "./stripe-form.js";
import { chargeOf, type PaymentIntent } from "./stripe-objects.js";

export { type FormValue, parseForm } from "./stripe-form.js";

type Session = Json & { id: string; status: string; payment_status: string; amount_total: number };

export interface FakeStripeOptions {
  /** Where events are POSTed; without it they are only recorded in `events`. */
  webhookUrl?: string;
  webhookSecret: string;
  /** The only key accepted; by default any sk_test_… key is. */
  apiKey?: string;
  clock?: () => Date;
}

/** One API call as the fake saw it (params decoded), with the status it answered. */
export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  params: Params;
  idempotencyKey?: string;
  status: number;
}

export interface FakeEvent {
  id: string;
  type: string;
  created: number;
  data: { object: Json };
  /** The exact body of every delivery of this event: Stripe resends the same bytes. */
  payload: string;
}

export type FakeDelivery = { eventId: string; status: number; body: string };
export type SignOptions = { timestampSec?: number; secret?: string };

const API_VERSION = Stripe.API_VERSION;

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** Start with startFakeStripe; close in afterAll. */
export class FakeStripe {
  url = "";
  /** Pass to createStripeProvider({ apiBase }). */
  apiBase = { host: "127.0.0.1", port: 0, protocol: "http" as const };
  readonly sessions = new Map<string, Session>();
  readonly events: FakeEvent[] = [];
  readonly refunds: Json[] = [];
  readonly requests: FakeRequest[] = [];
  /** Webhook deliveries and what the receiver answered. */
  readonly deliveries: FakeDelivery[] = [];
  private readonly intents = new Map<string, PaymentIntent>();
  /** payment_intent_data.metadata per session: Stripe puts it on the intent, not the session. */
  private readonly intentMetadata = new Map<string, Params>();
  private readonly idempotent = new Map<string, { fingerprint: string; reply: Reply }>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly server = http.createServer((req, res) => {
    this.handle(req, res).catch((err) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { type: "api_error", message: String(err) } }));
    });
  });

  constructor(private readonly options: FakeStripeOptions) {}

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    this.apiBase = { ...this.apiBase, port };
  }

  private nowSec(): number {
    return Math.floor((this.options.clock?.() ?? new Date()).getTime() / 1000);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    const params = parseForm(method === "GET" ? url.search.slice(1) : raw);
    const idempotencyKey = header(req, "idempotency-key");
    const apiKey = this.authenticate(header(req, "authorization"));
    const call = `${method} ${url.pathname}`;
    const { reply, replayed } =
      typeof apiKey !== "string"
        ? { reply: apiKey, replayed: false }
        : this.idempotently(apiKey, idempotencyKey, call, raw, () =>
            this.route(method, url.pathname, params),
          );
    const { headers } = req;
    const { status } = reply;
    this.requests.push({ method, path: url.pathname, headers, params, idempotencyKey, status });
    res.writeHead(reply.status, {
      "content-type": "application/json",
      "request-id": newId("req"),
      "stripe-version": header(req, "stripe-version") ?? API_VERSION,
      ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
      ...(replayed ? { "idempotent-replayed": "true" } : {}),
    });
    res.end(JSON.stringify(reply.body));
  }

  private authenticate(authorization: string | undefined): Reply | string {
    const key = authorization?.match(/^Bearer (.+)$/)?.[1];
    if (!key) {
      const how = "using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')";
      const message = `You did not provide an API key. You need to provide your API key in the Authorization header, ${how}.`;
      return fail(401, message);
    }
    const valid = this.options.apiKey ? key === this.options.apiKey : /^sk_test_\w+$/.test(key);
    return valid
      ? key
      : fail(401, `Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}`);
  }

  /** Same key + same params replays the first reply; same key + other params is refused. */
  private idempotently(
    apiKey: string,
    key: string | undefined,
    call: string,
    raw: string,
    run: () => Reply,
  ) {
    if (!call.startsWith("POST ") || !key) return { reply: run(), replayed: false };
    // Stripe scopes keys to the account; the API key stands in for it here.
    const slot = `${apiKey} ${key}`;
    const sorted = [...new URLSearchParams(raw)].map(([k, v]) => `${k}=${v}`).sort();
    const fingerprint = `${call} ${sorted.join("&")}`;
    const seen = this.idempotent.get(slot);
    if (seen && seen.fingerprint !== fingerprint) {
      const message = `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`;
      const body = { error: { type: "idempotency_error", message } };
      return { reply: { status: 400, body }, replayed: false };
    }
    if (seen) return { reply: seen.reply, replayed: true };
    const reply = run();
    // Like Stripe for requests refused at validation, only results of executed calls are kept.
    if (reply.status < 400) this.idempotent.set(slot, { fingerprint, reply });
    return { reply, replayed: false };
  }

  private route(method: string, path: string, p: Params): Reply {
    const [, resource, id = ""] =
      path.match(/^\/v1\/(checkout\/sessions|refunds)(?:\/([^/]+))?$/) ?? [];
    const call = `${method} ${resource}${id ? "/:id" : ""}`;
    if (call === "POST checkout/sessions") return this.createSession(p);
    if (call === "POST refunds") return this.createRefund(p);
    if (call === "GET refunds/:id") {
      const refund = this.refunds.find((r) => r.id === id);
      return refund ? ok(refund) : missing("refund", id, "id");
    }
    if (call === "GET checkout/sessions/:id") {
      const session = this.sessions.get(id);
      return session ? ok(session) : missing("checkout.session", id, "session");
    }
    return fail(404, `Unrecognized request URL (${method}: ${path}).`);
  }

  private createSession(p: Params): Reply {
    const checked = checkSession(p, this.nowSec());
    if ("status" in checked) return checked;
    const id = `cs_test_${randomBytes(24).toString("hex")}`;
    this.intentMetadata.set(id, obj(obj(p.payment_intent_data).metadata));
    const session: Session = {
      id,
      object: "checkout.session",
      mode: "payment",
      status: "open",
      payment_status: "unpaid",
      amount_subtotal: checked.total,
      amount_total: checked.total,
      currency: checked.currency,
      client_reference_id: str(p.client_reference_id) ?? null,
      customer_email: str(p.customer_email) ?? null,
      metadata: p.metadata ?? {},
      success_url: p.success_url,
      cancel_url: str(p.cancel_url) ?? null,
      created: this.nowSec(),
      expires_at: p.expires_at === undefined ? this.nowSec() + DAY_SEC : int(p.expires_at),
      url: `${this.url}/c/pay/${id}`,
      payment_intent: null,
      livemode: false,
    };
    this.sessions.set(id, session);
    return ok(session);
  }

  private createRefund(p: Params): Reply {
    const piId = str(p.payment_intent);
    if (!piId) return badParam("payment_intent", "Missing required param: payment_intent.");
    const pi = this.intents.get(piId);
    if (!pi) return missing("payment_intent", piId, "payment_intent");
    if (pi.capturedCents === 0) {
      return fail(400, `This PaymentIntent (${piId}) does not have a successful charge to refund.`);
    }
    const remaining = pi.capturedCents - pi.refundedCents;
    if (remaining <= 0) {
      const message = `Charge ${pi.chargeId} has already been refunded.`;
      return fail(400, message, { code: "charge_already_refunded" });
    }
    const amount = p.amount === undefined ? remaining : int(p.amount);
    if (!(amount >= 1)) return badParam("amount", "Invalid positive integer");
    if (amount > remaining) {
      const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;
      const message = `Refund amount (${usd(amount)}) is greater than unrefunded amount on charge (${usd(remaining)})`;
      return badParam("amount", message);
    }
    pi.refundedCents += amount;
    const refund: Json = {
      id: newId("re"),
      object: "refund",
      amount,
      currency: pi.currency,
      payment_intent: pi.id,
      charge: pi.chargeId,
      status: "succeeded",
      reason: str(p.reason) ?? null,
      metadata: p.metadata ?? {},
      created: this.nowSec(),
    };
    this.refunds.push(refund);
    // Stripe sends these asynchronously: the API reply does not wait for the webhook.
    this.background(this.sendEvent("refund.created", refund));
    this.background(this.sendEvent("charge.refunded", chargeOf(pi)));
    return ok(refund);
  }

  /**
   * Records an event (a snapshot of `object`) and delivers it when a webhookUrl is set. Public
   * so tests can send what the controls below do not produce, e.g. a refund.updated to failed.
   */
  async sendEvent(type: string, object: Json): Promise<FakeEvent> {
    const [id, created, data] = [newId("evt"), this.nowSec(), { object: structuredClone(object) }];
    const body = {
      id,
      object: "event",
      api_version: API_VERSION,
      created,
      data,
      livemode: false,
      pending_webhooks: this.options.webhookUrl ? 1 : 0,
      request: { id: null, idempotency_key: null },
      type,
    };
    const event: FakeEvent = { id, type, created, data, payload: JSON.stringify(body, null, 2) };
    this.events.push(event);
    if (this.options.webhookUrl) await this.deliver(id);
    return event;
  }

  /** The body and Stripe-Signature header a delivery would carry, without sending it. */
  sign(eventId: string, opts: SignOptions = {}): { payload: string; header: string } {
    const event = this.events.find((e) => e.id === eventId);
    if (!event) throw new Error(`fake stripe: no event ${eventId}`);
    const header = Stripe.webhooks.generateTestHeaderString({
      payload: event.payload,
      secret: opts.secret ?? this.options.webhookSecret,
      timestamp: opts.timestampSec ?? this.nowSec(),
    });
    return { payload: event.payload, header };
  }

  /** (Re)sends an event, signed now unless told otherwise: duplicates, stale or forged ones. */
  async deliver(eventId: string, opts?: SignOptions): Promise<FakeDelivery> {
    if (!this.options.webhookUrl) throw new Error("fake stripe: no webhookUrl to deliver to");
    const { payload, header: signature } = this.sign(eventId, opts);
    const res = await fetch(this.options.webhookUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        "stripe-signature": signature,
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      },
      body: payload,
      signal: AbortSignal.timeout(10_000),
    });
    const delivery = { eventId, status: res.status, body: await res.text() };
    this.deliveries.push(delivery);
    return delivery;
  }

  private background(work: Promise<unknown>): void {
    const tracked = work.catch((err) => {
      this.deliveries.push({ eventId: "?", status: 0, body: String(err) });
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private session(id: string, status: string): Session {
    const session = this.sessions.get(id);
    if (session?.status !== status) {
      throw new Error(`fake stripe: session ${id} is ${session?.status ?? "unknown"}`);
    }
    return session;
  }

  /** Pays the session (or completes it unpaid, as a delayed payment method does). */
  completeSession(id: string, opts: { paymentStatus?: "paid" | "unpaid" } = {}) {
    const session = this.session(id, "open");
    const paid = (opts.paymentStatus ?? "paid") === "paid";
    const pi: PaymentIntent = {
      id: newId("pi"),
      chargeId: newId("ch"),
      currency: String(session.currency),
      capturedCents: paid ? session.amount_total : 0,
      refundedCents: 0,
      metadata: structuredClone(this.intentMetadata.get(id) ?? {}),
    };
    this.intents.set(pi.id, pi);
    Object.assign(session, {
      status: "complete",
      payment_status: paid ? "paid" : "unpaid",
      payment_intent: pi.id,
      customer_details: { email: session.customer_email ?? "payer@example.com" },
    });
    return this.sendEvent("checkout.session.completed", session);
  }

  /** A completed-but-unpaid session's delayed payment arrives. */
  succeedAsyncPayment(id: string): Promise<FakeEvent> {
    const session = this.session(id, "complete");
    const pi = this.intents.get(String(session.payment_intent));
    if (session.payment_status !== "unpaid" || !pi) throw new Error(`fake stripe: ${id} is paid`);
    pi.capturedCents = session.amount_total;
    session.payment_status = "paid";
    return this.sendEvent("checkout.session.async_payment_succeeded", session);
  }

  expireSession(id: string): Promise<FakeEvent> {
    const session = this.session(id, "open");
    session.status = "expired";
    return this.sendEvent("checkout.session.expired", session);
  }

  /** Waits for deliveries started by API calls (refund events), which do not block replies. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  async close(): Promise<void> {
    await this.idle();
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.server.close((err) => (err ? reject(err) : resolve())),
    );
  }
}

export async function startFakeStripe(options: FakeStripeOptions): Promise<FakeStripe> {
  const fake = new FakeStripe(options);
  await fake.listen();
  return fake;
}

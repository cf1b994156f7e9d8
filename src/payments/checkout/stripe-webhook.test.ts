import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeStripe, startFakeStripe } from "../../../test/fakes/stripe-server.js";
import { createStripeProvider, type StripeCheckoutProvider } from "./stripe-provider.js";
import { parseStripeWebhook, WebhookSignatureError } from "./stripe-webhook.js";

const WEBHOOK_SECRET = "whsec_test_webhooks";
const SECRET_KEY = "sk_test_webhooks";
let now = new Date("2026-11-22T10:00:00Z");
const clock = () => now;

/** What arrived at our endpoint, byte for byte, as a route handler would see it. */
interface Received {
  body: string;
  signature: string | undefined;
}

let received: Received[] = [];
let receiver: http.Server;
let fake: FakeStripe;
let provider: StripeCheckoutProvider;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const signature = req.headers["stripe-signature"];
      received.push({ body: Buffer.concat(chunks).toString("utf8"), signature: String(signature) });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  fake = await startFakeStripe({
    webhookUrl: `http://127.0.0.1:${port}/webhooks/stripe`,
    webhookSecret: WEBHOOK_SECRET,
    clock,
  });
  provider = createStripeProvider({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    apiBase: fake.apiBase,
    clock,
  });
});

beforeEach(() => {
  now = new Date("2026-11-22T10:00:00Z");
  received = [];
});

afterAll(async () => {
  await fake.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

let counter = 0;
async function openSession(amountCents = 1200) {
  counter += 1;
  return provider.createSession({
    reference: `co_hook${counter}`,
    amountCents,
    currency: "usd",
    description: "Cloud restore",
    successUrl: "https://kinora.example/done",
    cancelUrl: "https://kinora.example/cancel",
    metadata: { job: `rj_${counter}` },
    idempotencyKey: `hook-${counter}`,
  });
}

function lastDelivery(): Received {
  const delivery = received.at(-1);
  if (!delivery) throw new Error("nothing was delivered");
  return delivery;
}

describe("parseStripeWebhook on real deliveries", () => {
  it("maps a paid checkout.session.completed to a paid checkout.completed", async () => {
    const session = await openSession(1200);
    const event = await fake.completeSession(session.providerSessionId);
    const { body, signature } = lastDelivery();
    const paid = parseStripeWebhook(body, signature, WEBHOOK_SECRET, 300, now);
    expect(paid).toEqual({
      eventId: event.id,
      type: "checkout.completed",
      providerSessionId: session.providerSessionId,
      providerPaymentId: fake.sessions.get(session.providerSessionId)?.payment_intent,
      amountCents: 1200,
      reference: `co_hook${counter}`,
      paid: true,
      createdAt: now,
    });
    expect(provider.parseWebhook(body, signature)).toEqual(paid);
  });

  it("does not mark a completed but unpaid session as paid, then does when the money arrives", async () => {
    const session = await openSession();
    await fake.completeSession(session.providerSessionId, { paymentStatus: "unpaid" });
    const unpaid = provider.parseWebhook(lastDelivery().body, lastDelivery().signature);
    expect(unpaid).toMatchObject({ type: "checkout.completed", paid: false });
    await fake.succeedAsyncPayment(session.providerSessionId);
    const paid = provider.parseWebhook(lastDelivery().body, lastDelivery().signature);
    expect(paid).toMatchObject({ type: "checkout.completed", paid: true, amountCents: 1200 });
    expect(paid.eventId).not.toBe(unpaid.eventId);
  });

  it("maps checkout.session.expired with the reference and paid false", async () => {
    const session = await openSession();
    await fake.expireSession(session.providerSessionId);
    expect(provider.parseWebhook(lastDelivery().body, lastDelivery().signature)).toMatchObject({
      type: "checkout.expired",
      providerSessionId: session.providerSessionId,
      reference: `co_hook${counter}`,
      paid: false,
    });
  });

  it("yields the same event id for a duplicate delivery, so a unique key dedupes it", async () => {
    const session = await openSession();
    const event = await fake.completeSession(session.providerSessionId);
    const first = lastDelivery();
    now = new Date(now.getTime() + 60_000);
    await fake.deliver(event.id);
    const second = lastDelivery();
    expect(second.body).toBe(first.body);
    expect(second.signature).not.toBe(first.signature);
    const a = provider.parseWebhook(first.body, first.signature);
    const b = provider.parseWebhook(second.body, second.signature);
    expect(b.eventId).toBe(a.eventId);
    expect(b).toEqual(a);
  });

  it("maps refund events to refund.updated with the payment intent", async () => {
    const session = await openSession(2000);
    await fake.completeSession(session.providerSessionId);
    const paymentIntent = String(fake.sessions.get(session.providerSessionId)?.payment_intent);
    const refund = await provider.refund({
      providerPaymentId: paymentIntent,
      amountCents: 800,
      reason: "failed job",
      idempotencyKey: `refund-${counter}`,
    });
    await fake.idle();
    const events = received.map((r) => provider.parseWebhook(r.body, r.signature));
    const charge = events.find((e) => e.type === "refund.updated");
    expect(charge).toMatchObject({ providerPaymentId: paymentIntent, amountCents: 800 });
    // Stripe also sends refund.created; the refund's later status changes come as refund.updated.
    expect(events.map((e) => e.type)).toEqual(["checkout.completed", "ignored", "refund.updated"]);
    const failed = { ...fake.refunds.at(-1), status: "failed" };
    await fake.sendEvent("refund.updated", failed);
    expect(provider.parseWebhook(lastDelivery().body, lastDelivery().signature)).toMatchObject({
      type: "refund.updated",
      refundId: refund.refundId,
      refundStatus: "failed",
      amountCents: 800,
      providerPaymentId: paymentIntent,
    });
  });

  it("acknowledges other event types as ignored", async () => {
    const event = await fake.sendEvent("customer.created", { id: "cus_1", object: "customer" });
    const parsed = provider.parseWebhook(lastDelivery().body, lastDelivery().signature);
    expect(parsed).toEqual({ eventId: event.id, type: "ignored", createdAt: now });
  });
});

describe("parseStripeWebhook refuses what Stripe did not sign", () => {
  async function signedDelivery(): Promise<Received> {
    const session = await openSession();
    await fake.completeSession(session.providerSessionId);
    return lastDelivery();
  }

  it("rejects a tampered body", async () => {
    const { body, signature } = await signedDelivery();
    const tampered = body.replace('"amount_total": 1200', '"amount_total": 120000');
    expect(tampered).not.toBe(body);
    expect(() => parseStripeWebhook(tampered, signature, WEBHOOK_SECRET, 300, now)).toThrow(
      /does not match the body/,
    );
  });

  it("rejects a signature made with another secret", async () => {
    const session = await openSession();
    const event = await fake.completeSession(session.providerSessionId);
    const forged = fake.sign(event.id, { secret: "whsec_attacker" });
    const parse = () => parseStripeWebhook(forged.payload, forged.header, WEBHOOK_SECRET, 300, now);
    expect(parse).toThrow(WebhookSignatureError);
  });

  it("rejects verification with the wrong configured secret", async () => {
    const { body, signature } = await signedDelivery();
    expect(() => parseStripeWebhook(body, signature, "whsec_other", 300, now)).toThrow(
      WebhookSignatureError,
    );
  });

  it("rejects a missing or malformed Stripe-Signature header", async () => {
    const { body } = await signedDelivery();
    expect(() => parseStripeWebhook(body, undefined, WEBHOOK_SECRET)).toThrow(
      /Missing Stripe-Signature/,
    );
    expect(() => parseStripeWebhook(body, "", WEBHOOK_SECRET)).toThrow(/Missing Stripe-Signature/);
    expect(() => parseStripeWebhook(body, "garbage", WEBHOOK_SECRET)).toThrow(/malformed/);
  });

  it("rejects a delivery signed more than 300 seconds ago, accepts one just inside", async () => {
    const { body, signature } = await signedDelivery();
    const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    expect(() => parseStripeWebhook(body, signature, WEBHOOK_SECRET, 300, at(301))).toThrow(
      /too old/,
    );
    expect(parseStripeWebhook(body, signature, WEBHOOK_SECRET, 300, at(300)).paid).toBe(true);
  });

  it("refuses a non-positive tolerance, which the SDK would treat as 'no age check'", async () => {
    const { body, signature } = await signedDelivery();
    expect(() => parseStripeWebhook(body, signature, WEBHOOK_SECRET, 0, now)).toThrow(/tolerance/);
  });

  it("rejects a body that is signed but not JSON", () => {
    const timestamp = Math.floor(now.getTime() / 1000);
    const header = Stripe.webhooks.generateTestHeaderString({
      payload: "not json",
      secret: WEBHOOK_SECRET,
      timestamp,
    });
    expect(() => parseStripeWebhook("not json", header, WEBHOOK_SECRET, 300, now)).toThrow(
      WebhookSignatureError,
    );
  });
});

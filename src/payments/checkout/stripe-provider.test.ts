import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeStripe, parseForm, startFakeStripe } from "../../../test/fakes/stripe-server.js";
import { CheckoutProviderError, type CreateSessionInput } from "./provider.js";
import {
  clampExpirySec,
  createStripeProvider,
  type StripeCheckoutProvider,
  withSessionIdPlaceholder,
} from "./stripe-provider.js";

const NOW = new Date("2026-11-22T10:00:00Z");
const clock = () => NOW;
const SECRET_KEY = "sk_test_kinora123";
const WEBHOOK_SECRET = "whsec_test_provider";

let fake: FakeStripe;
let provider: StripeCheckoutProvider;
let counter = 0;

beforeAll(async () => {
  fake = await startFakeStripe({ webhookSecret: WEBHOOK_SECRET, apiKey: SECRET_KEY, clock });
  provider = createStripeProvider({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    apiBase: fake.apiBase,
    timeoutMs: 5_000,
    clock,
  });
});

afterAll(async () => {
  await fake.close();
});

function input(overrides: Partial<CreateSessionInput> = {}): CreateSessionInput {
  counter += 1;
  return {
    reference: `co_test${counter}`,
    amountCents: 1500,
    currency: "usd",
    description: "kinora balance top-up",
    email: "payer@example.com",
    successUrl: "https://kinora.example/topup/done",
    cancelUrl: "https://kinora.example/topup/cancelled",
    metadata: { wallet: "wal_abc" },
    idempotencyKey: `checkout-co_test${counter}`,
    ...overrides,
  };
}

function lastRequest() {
  const request = fake.requests.at(-1);
  if (!request) throw new Error("no request reached the fake");
  return request;
}

async function paidSession(amountCents: number) {
  const session = await provider.createSession(input({ amountCents }));
  await fake.completeSession(session.providerSessionId);
  const paymentIntent = fake.sessions.get(session.providerSessionId)?.payment_intent;
  return String(paymentIntent);
}

describe("createSession through the real SDK", () => {
  it("sends one usd line item with the amount, reference, email, URLs and idempotency key", async () => {
    const session = await provider.createSession(
      input({ expiresAt: new Date(NOW.getTime() + 3_600_000) }),
    );
    const request = lastRequest();
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/checkout/sessions");
    expect(request.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(request.idempotencyKey).toBe(`checkout-co_test${counter}`);
    expect(request.params).toEqual({
      mode: "payment",
      line_items: [
        {
          quantity: "1",
          price_data: {
            currency: "usd",
            unit_amount: "1500",
            product_data: { name: "kinora balance top-up" },
          },
        },
      ],
      client_reference_id: `co_test${counter}`,
      metadata: { wallet: "wal_abc", reference: `co_test${counter}` },
      payment_intent_data: { metadata: { wallet: "wal_abc", reference: `co_test${counter}` } },
      customer_email: "payer@example.com",
      success_url: "https://kinora.example/topup/done?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "https://kinora.example/topup/cancelled",
      expires_at: String(NOW.getTime() / 1000 + 3600),
    });
    expect(session.providerSessionId).toMatch(/^cs_test_/);
    expect(session.url).toBe(`${fake.url}/c/pay/${session.providerSessionId}`);
    expect(session.expiresAt).toEqual(new Date(NOW.getTime() + 3_600_000));
    expect(fake.sessions.get(session.providerSessionId)).toMatchObject({
      status: "open",
      payment_status: "unpaid",
      amount_total: 1500,
    });
  });

  it("omits customer_email and expires_at when not given (Stripe's 24 h default applies)", async () => {
    const session = await provider.createSession(input({ email: undefined }));
    expect(lastRequest().params).not.toHaveProperty("customer_email");
    expect(lastRequest().params).not.toHaveProperty("expires_at");
    expect(session.expiresAt).toEqual(new Date(NOW.getTime() + 86_400_000));
  });

  it("clamps an expiry Stripe would refuse into its 30 min .. 24 h window", async () => {
    const soon = await provider.createSession(
      input({ expiresAt: new Date(NOW.getTime() + 60_000) }),
    );
    const late = await provider.createSession(
      input({ expiresAt: new Date(NOW.getTime() + 7 * 86_400_000) }),
    );
    const minutes = (d: Date | null) => ((d?.getTime() ?? 0) - NOW.getTime()) / 60_000;
    expect(minutes(soon.expiresAt)).toBe(32);
    expect(minutes(late.expiresAt)).toBe(24 * 60 - 2);
  });

  it("replays the same session for a retried idempotency key", async () => {
    const first = input();
    const a = await provider.createSession(first);
    const b = await provider.createSession(first);
    // A second session would have a new cs_ id: equality means Stripe replayed the first.
    expect(b).toEqual(a);
    expect(fake.requests.at(-1)?.idempotencyKey).toBe(first.idempotencyKey);
  });

  it("refuses the same idempotency key with other parameters, not retryable", async () => {
    const first = input();
    await provider.createSession(first);
    const error = await provider
      .createSession({ ...first, amountCents: 2500 })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CheckoutProviderError);
    expect(error).toMatchObject({ retryable: false, code: "idempotency_error" });
    expect(lastRequest().status).toBe(400);
  });

  it("reports a wrong secret key as a non-retryable provider error", async () => {
    const wrong = createStripeProvider({
      secretKey: "sk_test_wrong",
      webhookSecret: WEBHOOK_SECRET,
      apiBase: fake.apiBase,
    });
    const error = await wrong.createSession(input()).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CheckoutProviderError);
    expect((error as CheckoutProviderError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/Invalid API Key provided/);
    expect(lastRequest().status).toBe(401);
  });

  it("reports an unreachable Stripe as retryable", async () => {
    const down = createStripeProvider({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      apiBase: { host: "127.0.0.1", port: 1, protocol: "http" },
      maxNetworkRetries: 0,
    });
    const error = await down.createSession(input()).catch((err: unknown) => err);
    expect(error).toMatchObject({ name: "CheckoutProviderError", retryable: true });
  });

  it("refuses bad input before calling Stripe", async () => {
    const before = fake.requests.length;
    for (const bad of [
      input({ amountCents: 49 }),
      input({ amountCents: 10.5 }),
      input({ reference: "" }),
      input({ successUrl: "/relative" }),
      input({ metadata: { "a[b]": "x" } }),
      input({ idempotencyKey: "" }),
    ]) {
      await expect(provider.createSession(bad)).rejects.toMatchObject({
        retryable: false,
        code: "invalid_input",
      });
    }
    expect(fake.requests.length).toBe(before);
  });
});

describe("refund through the real SDK", () => {
  it("refunds part of a captured payment and records the reason", async () => {
    const paymentIntent = await paidSession(2000);
    const refund = await provider.refund({
      providerPaymentId: paymentIntent,
      amountCents: 500,
      reason: "restore failed",
      idempotencyKey: "refund-1",
    });
    expect(refund).toEqual({ refundId: expect.stringMatching(/^re_/), status: "succeeded" });
    expect(lastRequest().params).toEqual({
      payment_intent: paymentIntent,
      amount: "500",
      metadata: { reason: "restore failed" },
    });
    expect(lastRequest().idempotencyKey).toBe("refund-1");
  });

  it("returns the first refund again for a retried idempotency key, refunding once", async () => {
    const paymentIntent = await paidSession(2000);
    const args = { providerPaymentId: paymentIntent, amountCents: 700, reason: "cancelled" };
    const a = await provider.refund({ ...args, idempotencyKey: "refund-twice" });
    const b = await provider.refund({ ...args, idempotencyKey: "refund-twice" });
    expect(b).toEqual(a);
    expect(fake.refunds.filter((r) => r.payment_intent === paymentIntent)).toHaveLength(1);
  });

  it("refuses a refund beyond what is left of the captured amount", async () => {
    const paymentIntent = await paidSession(1000);
    await provider.refund({
      providerPaymentId: paymentIntent,
      amountCents: 600,
      reason: "partial",
      idempotencyKey: "refund-600",
    });
    const error = await provider
      .refund({
        providerPaymentId: paymentIntent,
        amountCents: 500,
        reason: "x",
        idempotencyKey: "refund-500",
      })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CheckoutProviderError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toMatch(
      /greater than unrefunded amount on charge \(\$4\.00\)/,
    );
    // The rest is still refundable: the refused call took nothing.
    await expect(
      provider.refund({
        providerPaymentId: paymentIntent,
        amountCents: 400,
        reason: "rest",
        idempotencyKey: "refund-400",
      }),
    ).resolves.toMatchObject({ status: "succeeded" });
    const again = provider.refund({
      providerPaymentId: paymentIntent,
      amountCents: 1,
      reason: "again",
      idempotencyKey: "refund-1c",
    });
    await expect(again).rejects.toMatchObject({ code: "charge_already_refunded" });
  });

  it("refuses to refund a session that completed without payment", async () => {
    const session = await provider.createSession(input());
    await fake.completeSession(session.providerSessionId, { paymentStatus: "unpaid" });
    const paymentIntent = String(fake.sessions.get(session.providerSessionId)?.payment_intent);
    const refund = provider.refund({
      providerPaymentId: paymentIntent,
      amountCents: 100,
      reason: "x",
      idempotencyKey: "refund-unpaid",
    });
    await expect(refund).rejects.toMatchObject({ retryable: false });
  });

  it("refuses an unknown payment intent with Stripe's resource_missing code", async () => {
    const refund = provider.refund({
      providerPaymentId: "pi_nope",
      amountCents: 100,
      reason: "x",
      idempotencyKey: "refund-missing",
    });
    await expect(refund).rejects.toMatchObject({ code: "resource_missing", retryable: false });
  });
});

describe("success URL and expiry helpers", () => {
  it("adds the session id placeholder as a query parameter, keeping any fragment", () => {
    expect(withSessionIdPlaceholder("https://k.example/done")).toBe(
      "https://k.example/done?session_id={CHECKOUT_SESSION_ID}",
    );
    expect(withSessionIdPlaceholder("https://k.example/done?co=co_1#top")).toBe(
      "https://k.example/done?co=co_1&session_id={CHECKOUT_SESSION_ID}#top",
    );
    expect(withSessionIdPlaceholder("https://k.example/done?")).toBe(
      "https://k.example/done?session_id={CHECKOUT_SESSION_ID}",
    );
    const already = "https://k.example/done?cs={CHECKOUT_SESSION_ID}";
    expect(withSessionIdPlaceholder(already)).toBe(already);
  });

  it("keeps an expiry that is already inside the window", () => {
    const twoHours = new Date(NOW.getTime() + 7_200_000);
    expect(clampExpirySec(twoHours, NOW)).toBe(twoHours.getTime() / 1000);
  });
});

describe("the fake's form decoding", () => {
  it("reads the SDK's bracket syntax into objects and arrays", () => {
    const body = "a[b][0][c]=1&a[b][1][c]=2&m[k]=v%20w&list[]=x&list[]=y&plain=p+q";
    expect(parseForm(body)).toEqual({
      a: { b: [{ c: "1" }, { c: "2" }] },
      m: { k: "v w" },
      list: ["x", "y"],
      plain: "p q",
    });
  });
});

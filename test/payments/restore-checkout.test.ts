/**
 * Restores paid per job by card: checkout link once uploaded, payment starts the job, and a
 * checkout-paid job that fails is refunded through the provider that took the money.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { moveRestore } from "../../src/kinds/restore/services/store.js";
import { checkoutPageToken } from "../../src/payments/test-checkout/provider.js";
import {
  processCardRefunds,
  refundExtraPayments,
} from "../../src/services/payments/card-refunds.js";
import { completeCheckout, findCheckout } from "../../src/services/payments/checkouts.js";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server.js";
import { jobBody, makeVideo, upload } from "../restore/helpers.js";
import { createPaymentsApp, type PaymentsTestApp } from "./helpers.js";

let video: { path: string; sizeBytes: number };

beforeAll(async () => {
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-pay-")), 2);
});

async function newCheckoutJob(t: PaymentsTestApp) {
  const created = await t.call("POST", "/cloud/jobs", {
    body: jobBody(video, { email: "customer@example.com", pay_with: "checkout" }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(created.body.job.status).toBe("pending_payment");
  return created.body as {
    job: { id: string; amount_cents: number };
    upload_url: string;
    upload_headers: Record<string, string>;
  };
}

async function failJob(t: PaymentsTestApp, jobId: string) {
  await moveRestore(
    t.platform.db,
    jobId,
    "fail",
    t.clock.now(),
    {},
    {
      refundReason: "engine failed",
    },
  );
}

describe("restore paid per job with the built-in test checkout", () => {
  let t: PaymentsTestApp;
  beforeAll(async () => {
    t = await createPaymentsApp({}, {}, [restoreFeature({ noExecutor: true })]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("asks for the upload first, then pays and starts the job; a paid job cannot be checked out again", async () => {
    expect((await t.call("POST", "/cloud/jobs/rj_doesnotexist0000/checkout")).status).toBe(404);
    const created = await newCheckoutJob(t);
    const id = created.job.id;
    const early = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    expect(early.status).toBe(400);
    expect(early.body.detail).toMatch(/upload/i);
    expect(early.body.code).toBe("not_uploaded");
    expect(await upload(t, created, video.path)).toBe(200);

    const co = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    expect(co.status, JSON.stringify(co.body)).toBe(200);
    expect(co.body.job).toMatchObject({ id, status: "pending_payment" });
    const again = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    expect(again.body.checkout_url).toBe(co.body.checkout_url);

    const checkoutId = String(co.body.checkout_url).split("/").pop() as string;
    const page = await (await t.fetchUrl(co.body.checkout_url)).text();
    expect(page).toContain(`Cloud restore, job ${id}`);
    const token = checkoutPageToken(t.platform.signer, checkoutId, t.platform.clock().getTime());
    const pay = await t.app.request(`/checkout/${checkoutId}/pay?token=${token}`, {
      method: "POST",
    });
    expect(pay.status).toBe(303);
    const job = await t.call("GET", `/cloud/jobs/${id}`);
    expect(job.body.job.status).toBe("processing");
    const late = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("wrong_state");
  });

  it("records a refund through the test provider when the paid job fails", async () => {
    const created = await newCheckoutJob(t);
    const id = created.job.id;
    await upload(t, created, video.path);
    const co = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    const checkoutId = String(co.body.checkout_url).split("/").pop() as string;
    const token = checkoutPageToken(t.platform.signer, checkoutId, t.platform.clock().getTime());
    await t.app.request(`/checkout/${checkoutId}/pay?token=${token}`, { method: "POST" });
    await failJob(t, id);
    expect(await processCardRefunds(t.payments)).toBe(1);
    expect(await processCardRefunds(t.payments)).toBe(0);
    expect((await findCheckout(t.payments, checkoutId))?.status).toBe("refunded");
    const refunds = await t.payments.platform.db
      .withTables<{ test_checkout_refunds: { idempotency_key: string; amount_cents: number } }>()
      .selectFrom("test_checkout_refunds")
      .selectAll()
      .execute();
    expect(refunds).toEqual([
      expect.objectContaining({
        idempotency_key: `refund-${id}`,
        amount_cents: created.job.amount_cents,
      }),
    ]);
  });

  it("refunds the payment the job did not start with", async () => {
    const created = await newCheckoutJob(t);
    const id = created.job.id;
    await upload(t, created, video.path);
    const first = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    const firstId = String(first.body.checkout_url).split("/").pop() as string;
    // The first link lapses unpaid in our books; a second one is handed out and paid.
    t.clock.advance(55 * 60_000);
    const second = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    const secondId = String(second.body.checkout_url).split("/").pop() as string;
    expect(secondId).not.toBe(firstId);
    await completeCheckout(t.payments, secondId, { providerPaymentId: "pay_2" });
    // …and then the first is paid after all (a late provider payment wins over our expiry).
    const late = await completeCheckout(t.payments, firstId, {
      providerPaymentId: "pay_1",
      from: ["open", "expired", "cancelled"],
    });
    expect(late.applied).toBe(true);
    expect((await t.call("GET", `/cloud/jobs/${id}`)).body.job.status).toBe("processing");
    t.clock.advance(2 * 60_000);
    expect(await refundExtraPayments(t.payments)).toBe(1);
    expect(await refundExtraPayments(t.payments)).toBe(0);
    expect((await findCheckout(t.payments, firstId))?.status).toBe("refunded");
    expect((await findCheckout(t.payments, secondId))?.status).toBe("paid");
    // When the job then fails, the payment it ran on is the one refunded.
    await failJob(t, id);
    expect(await processCardRefunds(t.payments)).toBe(1);
    expect((await findCheckout(t.payments, secondId))?.status).toBe("refunded");
    const refunds = await t.payments.platform.db
      .withTables<{
        test_checkout_refunds: { idempotency_key: string; provider_payment_id: string };
      }>()
      .selectFrom("test_checkout_refunds")
      .select(["idempotency_key", "provider_payment_id"])
      .where("idempotency_key", "=", `refund-${id}`)
      .execute();
    expect(refunds).toEqual([{ idempotency_key: `refund-${id}`, provider_payment_id: "pay_2" }]);
  });
});

describe("restore paid per job through Stripe", () => {
  let t: PaymentsTestApp;
  let fake: FakeStripe;
  beforeAll(async () => {
    fake = await startFakeStripe({ webhookSecret: "whsec_restore", apiKey: "sk_test_restore" });
    t = await createPaymentsApp(
      { STRIPE_SECRET_KEY: "sk_test_restore", STRIPE_WEBHOOK_SECRET: "whsec_restore" },
      { stripeApiBase: fake.apiBase },
      [restoreFeature({ noExecutor: true })],
    );
    t.clock.set(new Date());
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it("starts the job on the paid webhook and refunds it at the fake when it fails", async () => {
    const created = await newCheckoutJob(t);
    const id = created.job.id;
    await upload(t, created, video.path);
    const co = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    expect(co.status, JSON.stringify(co.body)).toBe(200);
    const session = [...fake.sessions.values()].find((s) => s.url === co.body.checkout_url);
    if (!session) throw new Error("no session at the fake");
    expect(session.amount_total).toBe(created.job.amount_cents);
    const event = await fake.completeSession(session.id);
    const { payload, header } = fake.sign(event.id);
    const hook = await t.call("POST", "/webhooks/stripe", {
      body: payload,
      headers: { "stripe-signature": header },
    });
    expect(hook.body.outcome).toBe("credited");
    expect((await t.call("GET", `/cloud/jobs/${id}`)).body.job.status).toBe("processing");

    await failJob(t, id);
    expect(await processCardRefunds(t.payments)).toBe(1);
    await fake.idle();
    expect(fake.refunds).toHaveLength(1);
    expect(fake.refunds[0]).toMatchObject({
      amount: created.job.amount_cents,
      payment_intent: session.payment_intent,
    });
    const refundCall = fake.requests.find((r) => r.path === "/v1/refunds");
    expect(refundCall?.idempotencyKey).toBe(`refund-${id}`);
    expect(await processCardRefunds(t.payments)).toBe(0);
  });
});

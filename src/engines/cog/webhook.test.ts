import { describe, expect, it } from "vitest";
import { createSigner } from "../../signing.js";
import { newWebhookSecret, webhookHeaders } from "../../standard-webhooks.js";
import type { Prediction } from "./prediction.js";
import {
  handlePredictionWebhook,
  PredictionWaiter,
  WEBHOOK_TOKEN_GRACE_MS,
  webhookUrlFor,
} from "./webhook.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

function prediction(id: string, status: Prediction["status"], logs = ""): Prediction {
  return { id, status, logs, output: status === "succeeded" ? "data:video/mp4;base64,AA==" : null };
}

describe("PredictionWaiter", () => {
  it("resolves a waiter with the terminal prediction", async () => {
    const waiter = new PredictionWaiter();
    const waiting = waiter.wait("p1");
    expect(waiter.deliver(prediction("p1", "processing", "10%"))).toBe(true);
    expect(waiter.deliver(prediction("p1", "succeeded", "100%"))).toBe(true);
    await expect(waiting).resolves.toMatchObject({ id: "p1", status: "succeeded", logs: "100%" });
  });

  it("ignores duplicates and never lets an older status overwrite a terminal one", async () => {
    const waiter = new PredictionWaiter();
    expect(waiter.deliver(prediction("p1", "succeeded", "a\nb\n"))).toBe(true);
    expect(waiter.deliver(prediction("p1", "succeeded", "a\nb\n"))).toBe(false);
    expect(waiter.deliver(prediction("p1", "processing", "a\n"))).toBe(false);
    expect(waiter.deliver(prediction("p1", "starting"))).toBe(false);
    expect(waiter.deliver(prediction("p1", "failed"))).toBe(false);
    await expect(waiter.wait("p1")).resolves.toMatchObject({ status: "succeeded" });
  });

  it("ignores an older non-terminal delivery arriving late", () => {
    const waiter = new PredictionWaiter();
    const seen: string[] = [];
    void waiter.wait("p1", undefined, (p) => seen.push(`${p.status}:${p.logs}`));
    waiter.deliver(prediction("p1", "processing", "50%"));
    waiter.deliver(prediction("p1", "starting"));
    waiter.deliver(prediction("p1", "processing", "10%"));
    waiter.deliver(prediction("p1", "processing", "50%\n80%"));
    expect(seen).toEqual(["processing:50%", "processing:50%\n80%"]);
  });

  it("keeps a delivery that arrives before anyone waits, then forgets it", async () => {
    let clock = 0;
    const waiter = new PredictionWaiter({ keepMs: 60_000, now: () => clock });
    waiter.deliver(prediction("early", "succeeded"));
    await expect(waiter.wait("early")).resolves.toMatchObject({ status: "succeeded" });
    clock = 61_000;
    waiter.deliver(prediction("other", "starting")); // any activity prunes
    expect(waiter.latest("early")).toBeUndefined();
  });

  it("bounds the number of tracked predictions", () => {
    const waiter = new PredictionWaiter({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) waiter.deliver(prediction(`p${i}`, "starting"));
    expect(waiter.size).toBeLessThanOrEqual(3);
    expect(waiter.latest("p9")).toBeDefined();
  });

  it("rejects a wait when its signal aborts and drops the waiter", async () => {
    const waiter = new PredictionWaiter();
    const controller = new AbortController();
    const waiting = waiter.wait("p1", controller.signal);
    controller.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
  });
});

describe("handlePredictionWebhook", () => {
  const body = JSON.stringify(prediction("p1", "succeeded"));
  const tokens = createSigner("test-signing-secret-0123456789abcdef");
  const later = Date.now() + WEBHOOK_TOKEN_GRACE_MS;

  it("accepts a signed delivery and is idempotent for retries", () => {
    const waiter = new PredictionWaiter();
    const headers = webhookHeaders(body, secret);
    const args = { headers, rawBody: body, url: "/webhooks/cog", secret, waiter };
    expect(handlePredictionWebhook(args)).toEqual({ status: 200, body: { applied: true } });
    expect(handlePredictionWebhook(args)).toEqual({ status: 200, body: { applied: false } });
  });

  it("rejects a forged signature even when the URL token is valid", () => {
    const waiter = new PredictionWaiter();
    const headers = webhookHeaders(body, newWebhookSecret());
    const url = webhookUrlFor("http://127.0.0.1/webhooks/cog", "p1", tokens, later);
    const result = handlePredictionWebhook({ headers, rawBody: body, url, secret, tokens, waiter });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ detail: "Webhook not authenticated.", code: "unauthorized" });
    expect(waiter.latest("p1")).toBeUndefined();
  });

  it("accepts an unsigned (plain Cog) delivery carrying the prediction's URL token", () => {
    const waiter = new PredictionWaiter();
    const url = webhookUrlFor("http://127.0.0.1/webhooks/cog?x=1", "p1", tokens, later);
    const result = handlePredictionWebhook({
      headers: {},
      rawBody: body,
      url,
      secret,
      tokens,
      waiter,
    });
    expect(result.status).toBe(200);
    expect(waiter.latest("p1")?.status).toBe("succeeded");
  });

  it("rejects an unsigned delivery without a token, or with another prediction's token", () => {
    const waiter = new PredictionWaiter();
    const plain = { headers: {}, rawBody: body, secret, tokens, waiter };
    expect(handlePredictionWebhook({ ...plain, url: "/webhooks/cog" }).status).toBe(401);
    const other = webhookUrlFor("http://h/webhooks/cog", "p2", tokens, later);
    expect(handlePredictionWebhook({ ...plain, url: other }).status).toBe(401);
    const tampered = webhookUrlFor("http://h/webhooks/cog", "p1", tokens, later).replace(
      /token=./,
      "token=x",
    );
    expect(handlePredictionWebhook({ ...plain, url: tampered }).status).toBe(401);
    expect(waiter.size).toBe(0);
  });

  it("takes URL tokens signed by kinora's signer: unexpired, for this purpose, any live key", () => {
    const waiter = new PredictionWaiter();
    const plain = { headers: {}, rawBody: body, secret, tokens, waiter };
    const url = (signer: typeof tokens, expiresAtMs: number) =>
      webhookUrlFor("http://h/webhooks/cog", "p1", signer, expiresAtMs);
    // Past its expiry (the prediction's deadline plus the grace), a token is refused.
    const expired = url(tokens, Date.now() - 1000);
    expect(handlePredictionWebhook({ ...plain, url: expired }).status).toBe(401);
    // Signed with a key the receiver does not have: refused.
    const stranger = url(createSigner("another-signing-secret-0123456789"), later);
    expect(handlePredictionWebhook({ ...plain, url: stranger }).status).toBe(401);
    // A kinora token of another purpose with the same claims is not a webhook token.
    const forOther = tokens.sign("output-ticket", { prediction: "p1" }, later);
    const misused = `http://h/webhooks/cog?prediction=p1&token=${forOther}`;
    expect(handlePredictionWebhook({ ...plain, url: misused }).status).toBe(401);
    // Rotation: a token signed before SIGNING_SECRET changed still verifies until it expires.
    const before = url(createSigner("old-signing-secret-0123456789abcdef"), later);
    const rotated = createSigner("new-signing-secret-0123456789abcdef", [
      "old-signing-secret-0123456789abcdef",
    ]);
    const result = handlePredictionWebhook({ ...plain, tokens: rotated, url: before });
    expect(result.status).toBe(200);
    // Without a signer only signed deliveries are taken.
    const unsigned = handlePredictionWebhook({
      ...plain,
      tokens: undefined,
      url: url(tokens, later),
    });
    expect(unsigned.status).toBe(401);
  });

  it("refuses all webhooks when no secret is configured", () => {
    const waiter = new PredictionWaiter();
    const result = handlePredictionWebhook({
      headers: {},
      rawBody: body,
      url: "/",
      secret: undefined,
      waiter,
    });
    expect(result.status).toBe(503);
  });

  it("answers 400 to a signed body that is not a prediction", () => {
    const waiter = new PredictionWaiter();
    const bad = '{"hello":"world"}';
    const headers = webhookHeaders(bad, secret);
    expect(
      handlePredictionWebhook({ headers, rawBody: bad, url: "/", secret, waiter }).status,
    ).toBe(400);
  });
});

import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  newWebhookSecret,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  webhookHeaders,
} from "./standard-webhooks.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const now = 1_700_000_000_000;

describe("signWebhook / verifyWebhook", () => {
  it("matches an independent HMAC of id.timestamp.body with the whsec_ key", () => {
    const body = '{"id":"p1","status":"succeeded"}';
    const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
    const mac = createHmac("sha256", key).update(`msg_1.1700000000.${body}`).digest("base64");
    expect(signWebhook({ id: "msg_1", timestamp: 1700000000, body, secret })).toBe(`v1,${mac}`);
  });

  it("accepts a fresh, correctly signed delivery", () => {
    const body = '{"id":"p1","status":"processing"}';
    const headers = webhookHeaders(body, secret, { id: "msg_a", nowMs: now });
    expect(verifyWebhook({ headers, body, secret, nowMs: now + 1000 })).toEqual({
      id: "msg_a",
      timestamp: now / 1000,
    });
  });

  it("accepts when one of several space-separated signatures is valid", () => {
    const body = "{}";
    const headers = webhookHeaders(body, secret, { nowMs: now });
    headers["webhook-signature"] = `v1,AAAA v2,zzz ${headers["webhook-signature"]}`;
    expect(() => verifyWebhook({ headers, body, secret, nowMs: now })).not.toThrow();
  });

  it.each([
    ["a tampered body", (h: Record<string, string>) => h, '{"status":"failed"}', secret, now],
    ["a wrong secret", (h: Record<string, string>) => h, "{}", newWebhookSecret(), now],
    [
      "a timestamp older than 5 minutes",
      (h: Record<string, string>) => h,
      "{}",
      secret,
      now + 301_000,
    ],
    ["a timestamp from the future", (h: Record<string, string>) => h, "{}", secret, now - 301_000],
    [
      "a missing signature header",
      (h: Record<string, string>) => ({ ...h, "webhook-signature": "" }),
      "{}",
      secret,
      now,
    ],
    [
      "a signature under another version tag",
      (h: Record<string, string>) => ({
        ...h,
        "webhook-signature": h["webhook-signature"]!.replace("v1,", "v2,"),
      }),
      "{}",
      secret,
      now,
    ],
    [
      "a changed webhook-id",
      (h: Record<string, string>) => ({ ...h, "webhook-id": "msg_other" }),
      "{}",
      secret,
      now,
    ],
  ])("rejects %s", (_name, mutate, body, verifySecret, verifyNow) => {
    const headers = mutate(webhookHeaders("{}", secret, { nowMs: now }));
    expect(() => verifyWebhook({ headers, body, secret: verifySecret, nowMs: verifyNow })).toThrow(
      WebhookVerificationError,
    );
  });

  it("reads headers from a fetch Headers object", () => {
    const headers = new Headers(webhookHeaders("{}", secret, { nowMs: now }));
    expect(() => verifyWebhook({ headers, body: "{}", secret, nowMs: now })).not.toThrow();
  });
});

/**
 * Held to the reference implementation (the `standardwebhooks` package), both ways. It reads
 * the clock itself, so these use the real time.
 */
describe("against the standardwebhooks package", () => {
  const body = JSON.stringify({ type: "job.succeeded", data: { id: "rj_1", note: "é ✓" } });

  it("its verifier accepts what we sign, with a fresh secret of ours", () => {
    const fresh = newWebhookSecret();
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const headers = webhookHeaders(body, fresh, { id: "evt_1" });
    expect(new Webhook(fresh).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(fresh).verify(Buffer.from(body), headers)).toEqual(JSON.parse(body));
  });

  it("we accept what it signs, and read the same id and timestamp", () => {
    const at = new Date();
    const headers = {
      "webhook-id": "msg_ref",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("msg_ref", at, body),
    };
    expect(verifyWebhook({ headers, body, secret })).toEqual({
      id: "msg_ref",
      timestamp: Math.floor(at.getTime() / 1000),
    });
    // The same signature, byte for byte.
    expect(headers["webhook-signature"]).toBe(
      signWebhook({ id: "msg_ref", timestamp: headers["webhook-timestamp"], body, secret }),
    );
  });

  it("both refuse a tampered body, a wrong secret and a delivery too old", () => {
    const other = newWebhookSecret();
    const old = Date.now() - 6 * 60_000;
    const ours = webhookHeaders(body, secret);
    const oursOld = webhookHeaders(body, secret, { nowMs: old });
    const theirs = (at: Date) => ({
      "webhook-id": "msg_t",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("msg_t", at, body),
    });
    const tampered = body.replace("rj_1", "rj_2");
    const cases: [string, Record<string, string>, string, string, RegExp, RegExp][] = [
      ["tampered (ours)", ours, tampered, secret, /No matching signature/, /No valid/],
      ["tampered (theirs)", theirs(new Date()), tampered, secret, /No matching/, /No valid/],
      ["wrong secret (ours)", ours, body, other, /No matching signature/, /No valid/],
      ["wrong secret (theirs)", theirs(new Date()), body, other, /No matching/, /No valid/],
      ["too old (ours)", oursOld, body, secret, /too old/, /too old/],
      ["too old (theirs)", theirs(new Date(old)), body, secret, /too old/, /too old/],
    ];
    for (const [name, headers, payload, key, refMessage, ourMessage] of cases) {
      expect(() => new Webhook(key).verify(payload, headers), name).toThrow(refMessage);
      expect(() => verifyWebhook({ headers, body: payload, secret: key }), name).toThrow(
        ourMessage,
      );
    }
  });
});

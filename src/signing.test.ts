import { describe, expect, it } from "vitest";
import { createSigner, keyId } from "./signing.js";

const NOW = Date.UTC(2026, 10, 1);
const A = "secret-a-0123456789abcdefghijklmnopqrstuv";
const B = "secret-b-0123456789abcdefghijklmnopqrstuv";

describe("the signing module", () => {
  it("round-trips claims for one purpose until the expiry, and says why it refuses", () => {
    const s = createSigner(A);
    const token = s.sign("upload", { k: "a/b" }, NOW + 60_000);
    expect(token.split(".")[0]).toBe(keyId(A));
    expect(s.verify("upload", token, NOW)).toMatchObject({ k: "a/b", exp: (NOW + 60_000) / 1000 });
    expect(s.check("download", token, NOW)).toEqual({ ok: false, problem: "forged" });
    expect(s.check("upload", token, NOW + 60_000)).toEqual({
      ok: false,
      problem: "expired",
      expiredAtMs: NOW + 60_000,
    });
    for (const junk of ["", "a.b", "a.b.c.d", `${token}x!`, "x".repeat(5000)]) {
      expect(s.verify("upload", junk, NOW)).toBeNull();
    }
  });

  it("refuses a token whose claims were changed, or made with a key it does not hold", () => {
    const s = createSigner(A);
    const [kid, payload, sig] = s.sign("t", { n: 1 }, NOW + 1000).split(".");
    const claims = JSON.parse(Buffer.from(payload as string, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, n: 2 })).toString("base64url");
    expect(s.check("t", `${kid}.${forged}.${sig}`, NOW)).toEqual({ ok: false, problem: "forged" });
    expect(s.check("t", createSigner(B).sign("t", {}, NOW + 1000), NOW).ok).toBe(false);
  });

  it("rotates: new tokens use the current key, tokens of a previous key still verify", () => {
    const old = createSigner(A).sign("t", { n: 1 }, NOW + 1000);
    const rotated = createSigner(B, [A]);
    expect(rotated.verify("t", old, NOW)).toMatchObject({ n: 1 });
    const fresh = rotated.sign("t", { n: 2 }, NOW + 1000);
    expect(fresh.split(".")[0]).toBe(keyId(B));
    // Once the old secret is dropped from SIGNING_SECRET_PREVIOUS, its tokens stop working.
    expect(createSigner(B).verify("t", old, NOW)).toBeNull();
    // A node that has not rotated yet still accepts only what it can check.
    expect(createSigner(A).verify("t", fresh, NOW)).toBeNull();
  });
});

describe("sealing", () => {
  it("opens what it sealed, for the same purpose only, and flags a previous key as stale", () => {
    const s = createSigner(A);
    const sealed = s.seal("webhook-secret", "whsec_abc");
    expect(sealed).not.toContain("whsec_abc");
    expect(s.open("webhook-secret", sealed)).toEqual({ plain: "whsec_abc", stale: false });
    expect(s.open("other", sealed)).toBeNull();
    expect(createSigner(B).open("webhook-secret", sealed)).toBeNull();
    expect(createSigner(B, [A]).open("webhook-secret", sealed)).toEqual({
      plain: "whsec_abc",
      stale: true,
    });
    const tampered = `${sealed.slice(0, -3)}${sealed.endsWith("A") ? "BBB" : "AAA"}`;
    expect(s.open("webhook-secret", tampered)).toBeNull();
  });
});

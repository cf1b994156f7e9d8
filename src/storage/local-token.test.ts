import { describe, expect, it } from "vitest";
import { createSigner } from "../signing.js";
import { signToken, verifyToken } from "./local-token.js";

const SECRET = createSigner("0123456789abcdef-secret-0123456789");
const NOW = Date.UTC(2026, 10, 1);
const exp = NOW / 1000 + 60;

describe("local store tokens", () => {
  it("round-trips upload and download claims", () => {
    const up = signToken(
      { purpose: "upload", key: "a/b", contentType: "video/mp4", sizeBytes: 42, expiresAtSec: exp },
      SECRET,
    );
    expect(verifyToken(up, "upload", SECRET, NOW)).toEqual({
      ok: true,
      claims: {
        purpose: "upload",
        key: "a/b",
        contentType: "video/mp4",
        sizeBytes: 42,
        expiresAtSec: exp,
      },
    });
    const down = signToken(
      { purpose: "download", key: "a/b", filename: "x.mp4", expiresAtSec: exp },
      SECRET,
    );
    const checked = verifyToken(down, "download", SECRET, NOW);
    expect(checked.ok && checked.claims.filename).toBe("x.mp4");
  });

  it("refuses another secret, a wrong purpose, expiry and junk, saying which", () => {
    const up = signToken(
      { purpose: "upload", key: "a/b", contentType: "video/mp4", sizeBytes: 1, expiresAtSec: exp },
      SECRET,
    );
    const detail = (r: { ok: boolean; detail?: string }) => (r.ok ? "ok" : r.detail);
    expect(
      detail(verifyToken(up, "upload", createSigner("another-secret-value-0123456789abc"), NOW)),
    ).toMatch(/signature/);
    expect(detail(verifyToken(up, "download", SECRET, NOW))).toMatch(/upload link/);
    expect(detail(verifyToken(up, "upload", SECRET, exp * 1000))).toMatch(
      /expired at 2026-11-01T00:01:00.000Z/,
    );
    expect(detail(verifyToken(up, "upload", SECRET, exp * 1000 - 1))).toBe("ok");
    for (const junk of ["", ".", "a.b.c", `${up}.x`, "a b.c", "x".repeat(5000)]) {
      expect(detail(verifyToken(junk, "upload", SECRET, NOW))).toMatch(/malformed|signature/);
    }
  });

  it("keeps links signed before a SIGNING_SECRET rotation working until they expire", () => {
    const before = createSigner("the-old-secret-0123456789abcdefghij");
    const up = signToken(
      { purpose: "upload", key: "a/b", contentType: "video/mp4", sizeBytes: 1, expiresAtSec: exp },
      before,
    );
    const rotated = createSigner("the-new-secret-0123456789abcdefghij", [
      "the-old-secret-0123456789abcdefghij",
    ]);
    expect(verifyToken(up, "upload", rotated, NOW).ok).toBe(true);
    const forgotten = createSigner("the-new-secret-0123456789abcdefghij");
    expect(verifyToken(up, "upload", forgotten, NOW)).toMatchObject({ ok: false });
  });
});

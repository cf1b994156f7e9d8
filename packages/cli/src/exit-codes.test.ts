import { ERROR_CODES, ERROR_TABLE } from "@kinora/client";
import { describe, expect, it } from "vitest";
import { EXIT, exitCodeForNetworkFailure, exitCodeForResponse } from "./exit-codes.js";

describe("exit codes from error responses", () => {
  it("maps funds and content refusals to 3, server failures to 4, other 4xx to 1", () => {
    expect(exitCodeForResponse(402, { detail: "x", needs_topup: true })).toBe(EXIT.refused);
    expect(exitCodeForResponse(402, { detail: "x", over_limit: true })).toBe(EXIT.refused);
    expect(exitCodeForResponse(422, { detail: "x", refused: "nudity" })).toBe(EXIT.refused);
    expect(exitCodeForResponse(422, { detail: "over a limit" })).toBe(EXIT.failed);
    expect(exitCodeForResponse(500, { detail: "x" })).toBe(EXIT.server);
    expect(exitCodeForResponse(503, { detail: "x" })).toBe(EXIT.server);
    for (const status of [400, 401, 403, 404, 409, 413, 429]) {
      expect(exitCodeForResponse(status, { detail: "x" }), String(status)).toBe(EXIT.failed);
    }
    expect(exitCodeForNetworkFailure()).toBe(EXIT.server);
  });

  it("follows the machine-readable code when the server sends one", () => {
    expect(exitCodeForResponse(402, { code: "payment_required" })).toBe(EXIT.refused);
    expect(exitCodeForResponse(422, { code: "refused" })).toBe(EXIT.refused);
    expect(exitCodeForResponse(500, { code: "internal" })).toBe(EXIT.server);
    expect(exitCodeForResponse(409, { code: "conflict" })).toBe(EXIT.failed);
    expect(exitCodeForResponse(400, { code: "invalid_field" })).toBe(EXIT.failed);
  });

  it("exits by the table's exit column for every code, whatever the status said", () => {
    for (const code of ERROR_CODES) {
      const row = ERROR_TABLE[code];
      expect(exitCodeForResponse(row.status, { code }), code).toBe(row.exit);
      expect(exitCodeForResponse(500, { code }), code).toBe(row.exit);
    }
  });

  it("ignores a code that is not in its table (a newer server, or Object.prototype)", () => {
    const foreign = { code: "toString" } as unknown as { code: "conflict" };
    expect(exitCodeForResponse(503, foreign)).toBe(EXIT.server);
    expect(exitCodeForResponse(409, { ...foreign, detail: "x" })).toBe(EXIT.failed);
  });
});

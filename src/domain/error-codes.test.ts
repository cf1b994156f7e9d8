import { describe, expect, it } from "vitest";
import { ERROR_CODE_NAMES, ERROR_CODES, exitOf, isErrorCode, statusOf } from "./error-codes.js";

describe("the error-code table", () => {
  it("gives every code a status, an exit code and a meaning from its own row", () => {
    expect(ERROR_CODE_NAMES).toEqual(Object.keys(ERROR_CODES));
    for (const code of ERROR_CODE_NAMES) {
      const row = ERROR_CODES[code];
      expect(statusOf(code), code).toBe(row.status);
      expect(exitOf(code), code).toBe(row.exit);
      expect(row.status >= 400 && row.status <= 599, code).toBe(true);
      expect([1, 3, 4], code).toContain(row.exit);
      expect(row.meaning.length, code).toBeGreaterThan(10);
      expect(isErrorCode(code)).toBe(true);
    }
  });

  it("sends server failures to exit 4 and only money and content refusals to exit 3", () => {
    for (const code of ERROR_CODE_NAMES) {
      if (statusOf(code) >= 500) expect(exitOf(code), code).toBe(4);
      else expect(exitOf(code), code).not.toBe(4);
    }
    const three = ERROR_CODE_NAMES.filter((code) => exitOf(code) === 3).sort();
    expect(three).toEqual(
      [
        "agreement_required",
        "needs_topup",
        "over_limit",
        "payment_required",
        "price_above_max",
        "refused",
        "wallet_paused",
      ].sort(),
    );
  });

  it("names the specific refusals of start, cancel, upload and key checks", () => {
    const specific = {
      not_uploaded: 400,
      upload_mismatch: 400,
      key_in_url: 400,
      image_fetch_failed: 400,
      key_revoked: 401,
      wallet_key_required: 403,
      agent_key_required: 403,
      link_invalid: 403,
      wrong_state: 409,
      paid_by_checkout: 409,
      already_uploaded: 409,
      idempotency_key_reused: 409,
      idempotency_in_flight: 409,
      range_not_satisfiable: 416,
    } as const;
    for (const [code, status] of Object.entries(specific)) {
      expect(isErrorCode(code), code).toBe(true);
      if (isErrorCode(code)) expect(statusOf(code), code).toBe(status);
    }
  });

  it("knows nothing outside the table", () => {
    for (const value of ["", "Conflict", "toString", "__proto__", 409, undefined, null]) {
      expect(isErrorCode(value), String(value)).toBe(false);
    }
  });
});

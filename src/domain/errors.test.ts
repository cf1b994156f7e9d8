import { describe, expect, it } from "vitest";
import { ERROR_CODE_NAMES, ERROR_CODES } from "./error-codes.js";
import {
  ApiError,
  conflict,
  invalidField,
  invalidRequest,
  needsTopup,
  notFound,
  overALimit,
  overLimit,
  refusedByRule,
  unauthorized,
  wrongState,
} from "./errors.js";

describe("ApiError", () => {
  it("takes its status from its code's row, for every code", () => {
    for (const code of ERROR_CODE_NAMES) {
      const err = new ApiError(code, "Something to fix.");
      expect(err.status, code).toBe(ERROR_CODES[code].status);
      expect(err.code).toBe(code);
      expect(err.body()).toEqual({ detail: "Something to fix.", code });
      expect(err.headers).toEqual({});
    }
  });

  it("carries extra body fields and response headers", () => {
    const err = new ApiError(
      "rate_limited",
      "Too many requests.",
      { retry_in: 3 },
      { headers: { "Retry-After": "3" } },
    );
    expect(err.status).toBe(429);
    expect(err.headers).toEqual({ "Retry-After": "3" });
    expect(err.body()).toEqual({ detail: "Too many requests.", code: "rate_limited", retry_in: 3 });
  });
});

describe("error helpers", () => {
  const helpers = {
    invalidField: invalidField("limit_cents", "must be an integer from 1 to 100000."),
    invalidRequest: invalidRequest("Send the body as JSON."),
    unauthorized: unauthorized("Unknown API key."),
    notFound: notFound("Clip"),
    conflict: conflict("The reference was used."),
    wrongState: wrongState("The job is done."),
    needsTopup: needsTopup("The balance does not cover it."),
    overLimit: overLimit("The key's limit does not cover it."),
    overALimit: overALimit("duration_sec", "must be at most 7200 seconds."),
    refusedByRule: refusedByRule("violence", "Refused by the content rule."),
  };

  it("each build one code of their own, with that code's status", () => {
    const codes = Object.values(helpers).map((err) => err.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const [name, err] of Object.entries(helpers)) {
      expect(err.status, name).toBe(ERROR_CODES[err.code].status);
    }
    expect(Object.fromEntries(Object.entries(helpers).map(([n, e]) => [n, e.code]))).toEqual({
      invalidField: "invalid_field",
      invalidRequest: "invalid_request",
      unauthorized: "unauthorized",
      notFound: "not_found",
      conflict: "conflict",
      wrongState: "wrong_state",
      needsTopup: "needs_topup",
      overLimit: "over_limit",
      overALimit: "over_a_limit",
      refusedByRule: "refused",
    });
  });

  it("word a field error as the caller names it, whatever the problem's wording", () => {
    expect(helpers.invalidField.detail).toBe("limit_cents: must be an integer from 1 to 100000.");
    expect(invalidField("email", "Is Required").code).toBe("invalid_field");
    expect(invalidRequest("limit_cents: looks like a field").code).toBe("invalid_request");
    expect(helpers.overALimit.detail).toBe("duration_sec: must be at most 7200 seconds.");
    expect(helpers.notFound.detail).toBe("Clip not found.");
  });

  it("set the spec's flags on money and content refusals", () => {
    expect(helpers.needsTopup.body()).toMatchObject({ code: "needs_topup", needs_topup: true });
    expect(helpers.overLimit.body()).toMatchObject({ code: "over_limit", over_limit: true });
    expect(helpers.refusedByRule.body()).toMatchObject({ code: "refused", refused: "violence" });
  });
});

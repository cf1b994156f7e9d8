import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { ERROR_CODE_NAMES, statusOf } from "../domain/error-codes.js";
import { ApiError } from "../domain/errors.js";
import { silentLogger } from "../logger.js";
import type { AppEnv } from "./env.js";
import { codeForStatus, handleError } from "./errors.js";

describe("codeForStatus (answers kinora did not build from a code)", () => {
  it("gives every status of the table a code of that same status", () => {
    for (const status of new Set(ERROR_CODE_NAMES.map(statusOf))) {
      expect(statusOf(codeForStatus(status)), String(status)).toBe(status);
    }
  });

  it("falls back to invalid_request below 500 and internal from 500 on", () => {
    expect(codeForStatus(415)).toBe("invalid_request");
    expect(codeForStatus(504)).toBe("internal");
  });
});

describe("handleError", () => {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("requestId", "req_test");
    await next();
  });
  app.onError(handleError(silentLogger));
  app.get("/json", () => {
    throw new HTTPException(400, { message: "Malformed JSON in request body" });
  });
  app.get("/big", () => {
    throw new HTTPException(413, { message: "Payload Too Large" });
  });
  app.get("/other", () => {
    throw new HTTPException(401, { message: "No entry" });
  });
  app.get("/paused", () => {
    throw new ApiError("wallet_paused", "Paused.", {}, { headers: { "X-Why": "paused" } });
  });
  app.get("/crash", () => {
    throw new Error("secret internals");
  });
  const get = async (path: string) => {
    const res = await app.request(path);
    return { status: res.status, headers: res.headers, body: await res.json() };
  };

  it("names the framework's malformed JSON and body limit explicitly", async () => {
    const json = await get("/json");
    expect(json.status).toBe(400);
    expect(json.body).toEqual({
      code: "invalid_request",
      detail:
        "The request body is not valid JSON; send a JSON object with Content-Type: application/json.",
    });
    const big = await get("/big");
    expect(big.status).toBe(413);
    expect(big.body.code).toBe("too_large");
    const other = await get("/other");
    expect(other).toMatchObject({
      status: 401,
      body: { code: "unauthorized", detail: "No entry" },
    });
  });

  it("answers an ApiError with its code's status, body and headers", async () => {
    const paused = await get("/paused");
    expect(paused.status).toBe(403);
    expect(paused.body).toEqual({ detail: "Paused.", code: "wallet_paused" });
    expect(paused.headers.get("x-why")).toBe("paused");
  });

  it("answers anything else with a 500 coded internal that says nothing internal", async () => {
    const crash = await get("/crash");
    expect(crash.status).toBe(500);
    expect(crash.body).toMatchObject({ code: "internal", request_id: "req_test" });
    expect(JSON.stringify(crash.body)).not.toContain("secret internals");
  });
});

/**
 * /docs shows a real example per error: every error response of every operation in the OpenAPI
 * document carries one example per code it lists, each a body the Error schema accepts, with
 * its own detail (not one sentence for every error).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/app.js";
import { ErrorBody } from "../api/schemas.js";
import { ERROR_CODES, type ErrorCode } from "../domain/error-codes.js";
import { FEATURES } from "../features.js";

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any;
let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await createTestApp({ features: FEATURES });
  doc = (await t.call("GET", "/openapi.json")).body;
});
afterAll(async () => {
  await t.close();
});

describe("error examples in the OpenAPI document", () => {
  it("gives every documented error status one valid example per code, each its own", () => {
    const details = new Set<string>();
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses ?? {}) as [string, Json][]) {
          const examples = response.content?.["application/json"]?.examples;
          if (Number(status) < 400 || !examples) continue;
          for (const [code, example] of Object.entries(examples) as [ErrorCode, Json][]) {
            const where = `${method.toUpperCase()} ${path} ${status} ${code}`;
            expect(ERROR_CODES[code]?.status, where).toBe(Number(status));
            expect(example.value.code, where).toBe(code);
            expect(ErrorBody.safeParse(example.value).success, where).toBe(true);
            details.add(example.value.detail);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    // One detail per code seen, not the same sentence everywhere.
    expect(details.size).toBeGreaterThanOrEqual(20);
  });

  it("documents the new refusals of spending operations with their price and question", () => {
    const created = doc.paths["/cloud/jobs"].post.responses["402"].content["application/json"];
    expect(Object.keys(created.examples)).toEqual(
      expect.arrayContaining(["needs_topup", "over_limit", "price_above_max"]),
    );
    expect(created.examples.price_above_max.value).toMatchObject({
      price_cents: 499,
      question: expect.stringContaining("$4.99 from your balance?"),
    });
  });
});

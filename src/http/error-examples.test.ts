/**
 * /docs shows, for each operation, a real example of every error it can answer: each is a body
 * the Error schema accepts under its own status, worded for that operation — and, for every
 * code a test can provoke cheaply (no key, a key in the URL, an unknown or revoked key, an agent
 * key where the wallet key is needed, an id that names nothing, a bad field, a price the
 * balance, the limit or max_price_cents does not cover), exactly what that operation answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createTestApp, type TestApp } from "../../test/app.js";
import type { AnyContract, RestBinding } from "../api/operation.js";
import { ErrorBody } from "../api/schemas.js";
import { ERROR_CODES, type ErrorCode } from "../domain/error-codes.js";
import { adminFeature, walletFeature } from "../features/core.js";
import { FEATURES } from "../features.js";
import { invalidFieldProbe, pathResource } from "./error-examples.js";
import { restShape } from "./operation-doc.js";

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any;
let t: TestApp;
let doc: Json;
let contracts: (AnyContract & { rest: RestBinding })[];
beforeAll(async () => {
  t = await createTestApp({ features: FEATURES, env: { RATE_LIMITS: "off" } });
  doc = (await t.call("GET", "/openapi.json")).body;
  // The core features are mounted by buildApp itself; their operations are listed here too.
  contracts = [walletFeature(t.platform), adminFeature(t.platform), ...t.features]
    .flatMap((f) => f.operations ?? [])
    .map((op) => op.contract)
    .filter((c): c is AnyContract & { rest: RestBinding } => Boolean(c.rest));
});
afterAll(async () => {
  await t.close();
});

/** The documented example of `code` on the contract's operation. */
function documented(c: AnyContract & { rest: RestBinding }, code: ErrorCode): Json {
  const op = doc.paths[c.rest.path][c.rest.method];
  const status = String(ERROR_CODES[code].status);
  const example = op.responses[status]?.content?.["application/json"]?.examples?.[code];
  expect(example, `${c.id} documents ${code}`).toBeDefined();
  return example.value;
}

const documents = (c: AnyContract & { rest: RestBinding }, code: ErrorCode) => {
  const op = doc.paths[c.rest.path][c.rest.method];
  return Boolean(
    op.responses[String(ERROR_CODES[code].status)]?.content?.["application/json"]?.examples?.[code],
  );
};

/** Calls the contract's REST operation with its path's id filled in. */
function callOp(
  c: AnyContract & { rest: RestBinding },
  opts: { key?: string; input?: Record<string, unknown>; query?: string } = {},
) {
  const kinds = t.features.flatMap((f) => (f.kind ? [f.kind] : []));
  let path = c.rest.path.replace(/\{[^}]+\}/g, pathResource(c, c.rest, kinds)?.id ?? "x");
  const input = opts.input ?? {};
  const params = new URLSearchParams(opts.query ?? "");
  if (c.rest.method === "get") {
    for (const [k, v] of Object.entries(input)) params.set(k, String(v));
  }
  if ([...params].length > 0) path += `?${params}`;
  return t.call(c.rest.method.toUpperCase(), path, {
    ...(opts.key ? { key: opts.key } : {}),
    ...(c.rest.method === "get" ? {} : { body: input }),
  });
}

/** The body fields of the contract's example input (a well-formed call). */
function exampleBody(c: AnyContract & { rest: RestBinding }): Record<string, unknown> {
  const shape = restShape(c, c.rest);
  const registered =
    doc.paths[c.rest.path][c.rest.method].requestBody?.content?.["application/json"]?.schema;
  const schema = registered?.$ref
    ? doc.components.schemas[registered.$ref.split("/").pop()]
    : registered;
  const body = (schema?.example ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(body).filter(([k]) => shape.body.includes(k)));
}

async function expectAnswer(
  c: AnyContract & { rest: RestBinding },
  code: ErrorCode,
  answer: { status: number; body: Json },
) {
  const where = `${c.rest.method.toUpperCase()} ${c.rest.path} ${code}`;
  const example = documented(c, code);
  expect({ status: answer.status, code: answer.body?.code }, where).toEqual({
    status: ERROR_CODES[code].status,
    code,
  });
  expect(answer.body.detail, where).toBe(example.detail);
}

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
    expect(details.size).toBeGreaterThanOrEqual(40);
  });

  it("describes the error body as it is: code and request_id with the detail", () => {
    expect(doc.info.description).toMatch(/\{detail, code, request_id\}/);
    expect(doc.components.schemas.Error.required).toEqual(
      expect.arrayContaining(["detail", "code", "request_id"]),
    );
  });

  it("documents the refusals of spending operations with their price and question", () => {
    const created = doc.paths["/cloud/jobs"].post.responses["402"].content["application/json"];
    expect(Object.keys(created.examples)).toEqual(
      expect.arrayContaining(["needs_topup", "over_limit", "price_above_max"]),
    );
    expect(created.examples.price_above_max.value).toMatchObject({
      price_cents: 499,
      question: expect.stringContaining("$4.99 from your balance?"),
    });
    // A key that must ask is refused over REST too, with the approval it waits for.
    expect(created.examples.agreement_required.value).toMatchObject({
      approval_id: expect.stringMatching(/^apr_/),
      approval_url: expect.stringContaining("/approve/apr_"),
    });
  });

  it("keeps each resource's sentences on its own operations", () => {
    const wrong: [RegExp, RegExp][] = [
      [/^\/motion\//, /\b(restore|video|rj_)/i],
      [/^\/cloud\//, /\b(clip|image)\b/i],
      [/^\/wallet\/webhooks/, /\b(restore|clip)\b/i],
      [/^\/wallet\/topup$/, /USDC/],
      [/^\/wallet\/topup\/crypto$/, /card/i],
    ];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const response of Object.values(op.responses ?? {}) as Json[]) {
          const examples = response.content?.["application/json"]?.examples ?? {};
          for (const [code, example] of Object.entries(examples) as [string, Json][]) {
            for (const [where, words] of wrong) {
              if (!where.test(path)) continue;
              // A remedy may name another operation; the refusal itself is this one's.
              const refusal = example.value.detail.split(/ (Add money|Open its|Start it) /)[0];
              expect(refusal, `${method.toUpperCase()} ${path} ${code}`).not.toMatch(words);
            }
          }
        }
      }
    }
  });
});

describe("each example is what its operation answers", () => {
  it("without a key, with one in the URL, with an unknown or revoked one, with an agent key", async () => {
    const owner = await t.newWallet(1000);
    const agent = await t.newAgentKey(owner.key, 500, { askBeforeSpending: true });
    const revoked = await t.newAgentKey(owner.key, 500, { askBeforeSpending: true });
    await t.call("POST", `/wallet/keys/${revoked.id}/revoke`, { key: owner.key });
    let checked = 0;
    for (const c of contracts) {
      const keyed = c.auth === "key" || c.auth === "wallet" || c.auth === "optional";
      if (c.auth === "admin" || c.auth === "key" || c.auth === "wallet") {
        await expectAnswer(c, "unauthorized", await callOp(c));
        checked++;
      }
      if (!keyed) continue;
      await expectAnswer(c, "key_in_url", await callOp(c, { query: "key=pak_x" }));
      await expectAnswer(c, "key_revoked", await callOp(c, { key: revoked.key }));
      if (c.auth === "optional") {
        const unknown = `pmk_${"A".repeat(32)}`;
        await expectAnswer(c, "unauthorized", await callOp(c, { key: unknown }));
      }
      if (c.auth === "wallet") {
        await expectAnswer(c, "wallet_key_required", await callOp(c, { key: agent.key }));
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(25);
  });

  it("with an id that names nothing, and with a bad field", async () => {
    const owner = await t.newWallet(1000);
    let notFound = 0;
    let badField = 0;
    for (const c of contracts) {
      const key = c.auth === "admin" ? ADMIN_TOKEN : c.auth === "none" ? undefined : owner.key;
      const shape = restShape(c, c.rest);
      if (documents(c, "not_found")) {
        // A well-formed call but for the id, so nothing else is refused first.
        const input = c.rest.method === "get" ? {} : exampleBody(c);
        const answer = await callOp(c, { key, input });
        // With USDC off (as here) a refund is refused before any wallet is looked up.
        await expectAnswer(c, c.id === "refundUsdc" ? "unavailable" : "not_found", answer);
        notFound++;
      }
      if (documents(c, "invalid_field")) {
        const probe = invalidFieldProbe(c, c.rest, [...shape.query, ...shape.body]);
        expect(probe, c.id).toBeDefined();
        await expectAnswer(c, "invalid_field", await callOp(c, { key, input: probe?.input }));
        badField++;
      }
    }
    expect(notFound).toBeGreaterThanOrEqual(16);
    expect(badField).toBeGreaterThan(15);
  });

  it("with a price the balance, the key's limit or max_price_cents does not cover", async () => {
    const poor = await t.newWallet(20);
    const rich = await t.newWallet(100_000);
    const tight = await t.newAgentKey(rich.key, 20, { askBeforeSpending: false });
    for (const id of ["createRestore", "createClip"]) {
      const c = contracts.find((x) => x.id === id);
      if (!c) throw new Error(`no ${id}`);
      const input = exampleBody(c);
      await expectAnswer(c, "needs_topup", await callOp(c, { key: poor.key, input }));
      await expectAnswer(c, "over_limit", await callOp(c, { key: tight.key, input }));
      const price = documented(c, "price_above_max").price_cents as number;
      const above = { ...input, max_price_cents: price - 1 };
      const answer = await callOp(c, { key: rich.key, input: above });
      await expectAnswer(c, "price_above_max", answer);
      expect(answer.body.question).toBe(documented(c, "price_above_max").question);
    }
  });

  it("with USDC switched off", async () => {
    const owner = await t.newWallet(0);
    const c = contracts.find((x) => x.id === "topUpWithUsdc");
    if (!c) throw new Error("no topUpWithUsdc");
    await expectAnswer(
      c,
      "unavailable",
      await callOp(c, { key: owner.key, input: exampleBody(c) }),
    );
  });
});

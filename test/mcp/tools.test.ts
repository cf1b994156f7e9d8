/**
 * The MCP server through the official SDK client over real HTTP: the 13 tools, auth (header,
 * ?key=, wallet key, revoked key), errors as tool results and idempotent retries. The
 * transport's edges are in transport.test.ts, the other clients and eras in eras.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { stubClassifier } from "../clips/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { CLIENTS, call, connect, INIT, type Json, refusal, rpc } from "./helpers.js";

const TOOL_NAMES = [
  "get_prices",
  "quote_restore",
  "create_restore",
  "start_restore",
  "get_restore",
  "make_clip",
  "start_clip",
  "get_clip",
  "list_clips",
  "list_restores",
  "cancel_job",
  "get_balance",
  "create_top_up_link",
  "top_up_with_usdc",
];

let s: ServedApp;
beforeAll(async () => {
  const classifier = stubClassifier().classifier;
  s = await serveTestApp({
    features: [
      restoreFeature({ noExecutor: true }),
      clipsFeature({ classifier, noExecutor: true }),
      paymentsFeature(),
      mcpFeature(),
    ],
  });
});
afterAll(async () => {
  await s.close();
});

/** An agent key the owner agreed to in advance unless `askBeforeSpending` (./agreement.test.ts). */
async function agent(balance = 10_000, limit = 5_000, askBeforeSpending = false) {
  const owner = await s.t.newWallet(balance);
  const res = await s.t.call("POST", "/wallet/keys", {
    key: owner.key,
    body: {
      limit_cents: limit,
      ask_before_spending: askBeforeSpending,
    },
  });
  return { owner, key: res.body.key as string, keyId: res.body.agent_key.id as string };
}

const ledgerCount = async (walletId: string) =>
  (
    await s.t.deps.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("wallet_id", "=", walletId)
      .execute()
  ).length;

describe("tools/list", () => {
  it("lists the 13 spec tools and list_restores, each with an output schema naming its fields and all four hints", async () => {
    const { key } = await agent();
    const client = await connect(s.url, key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(Object.keys(tool.outputSchema?.properties ?? {}).length, tool.name).toBeGreaterThan(0);
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
        expect(typeof (tool.annotations as Json)?.[hint], `${tool.name} ${hint}`).toBe("boolean");
      }
      expect(tool.description, tool.name).toMatch(/\$|Free|free|charge|[Rr]efund/);
    }
    const readOnly = tools
      .filter((t) => t.annotations?.readOnlyHint)
      .map((t) => t.name)
      .sort();
    expect(readOnly).toEqual(
      [
        "get_balance",
        "get_clip",
        "get_prices",
        "get_restore",
        "list_clips",
        "list_restores",
        "quote_restore",
      ].sort(),
    );
    // Open-world: anything that reaches beyond kinora (a URL fetched, a checkout, a chain).
    const openWorld = tools
      .filter((t) => t.annotations?.openWorldHint)
      .map((t) => t.name)
      .sort();
    expect(openWorld).toEqual(
      [
        "create_restore",
        "create_top_up_link",
        "make_clip",
        "start_restore",
        "top_up_with_usdc",
      ].sort(),
    );
    const create = tools.find((t) => t.name === "create_restore");
    expect(create?.outputSchema?.properties).toMatchObject({
      job: { type: "object" },
      upload_url: { type: "string" },
      paid_from_balance: { type: "boolean" },
    });
    expect(create?.inputSchema.properties).toHaveProperty("duration_sec");
    expect(create?.inputSchema.properties).toHaveProperty("idempotency_key");
    await client.close();
  });

  it("tells the assistant whether the owner agreed in advance, and what the key may still spend", async () => {
    const asks = await connect(s.url, (await agent(10_000, 700, true)).key);
    expect(asks.getInstructions()).toMatch(/NOT agreed in advance/);
    expect(asks.getInstructions()).toMatch(/\$7\.00/);
    const trusted = await connect(s.url, (await agent(10_000, 700, false)).key);
    expect(trusted.getInstructions()).toMatch(
      /agreed in advance to spending within this key's limit/,
    );
    const balance = await call(trusted, "get_balance");
    expect(balance.structuredContent.wallet.agent_key.ask_before_spending).toBe(false);
    await asks.close();
    await trusted.close();
  });
});

describe("not_found gives the next step", () => {
  it("names the tool for the id's kind, or the list tools, over MCP and in REST words over REST", async () => {
    const { key } = await agent();
    const client = await connect(s.url, key);
    const r = (
      await call(client, "create_restore", {
        duration_sec: 30,
        filename: "a.mp4",
        content_type: "video/mp4",
        size: 10,
      })
    ).structuredContent.job.id as string;
    const asClip = refusal(await call(client, "get_clip", { job_id: r }));
    expect(asClip.code).toBe("not_found");
    expect(asClip.detail).toMatch(
      new RegExp(`${r} is a restore's id: read it with the get_restore tool\\.`),
    );
    const unknown = refusal(
      await call(client, "get_restore", { job_id: "rj_000000000000000000000" }),
    );
    expect(unknown.detail).toMatch(
      /This key sees only its own jobs: the list_restores tool lists them\./,
    );
    const either = refusal(await call(client, "cancel_job", { job_id: "nope" }));
    expect(either.detail).toMatch(
      /Job ids start with rj_ \(restores\) or clip_ \(clips\); the list_restores tool or the list_clips tool lists/,
    );
    const rest = await s.t.call("GET", `/motion/jobs/${r}`, { key });
    expect(rest.status).toBe(404);
    expect(rest.body.detail).toContain(`is a restore's id: read it with GET /cloud/jobs/${r}.`);
    const restUnknown = await s.t.call("GET", "/motion/jobs/clip_0000000000000000", { key });
    expect(restUnknown.body.detail).toMatch(/GET \/motion\/jobs lists them\./);
    await client.close();
  });
});

describe("auth", () => {
  it("says why a key is refused at connect, in every official client and era (error_description)", async () => {
    const { owner, key, keyId } = await agent();
    await s.t.call("POST", `/wallet/keys/${keyId}/revoke`, { key: owner.key });
    for (const kind of CLIENTS) {
      const err = await connect(s.url, key, { client: kind }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err, kind).toBeInstanceOf(Error);
      // The message, or the answer's text the SDK's error carries beside it.
      const said = `${err?.message} ${JSON.stringify((err as { data?: unknown })?.data ?? "")}`;
      expect(said, kind).toMatch(/key_revoked/);
    }
    const sent: Record<string, string>[] = [{}, { authorization: `Bearer ${key}` }];
    for (const headers of sent) {
      const res = await rpc(s.url, INIT, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/error_description="[\x20-\x7e]+"/);
    }
    const revoked = await rpc(s.url, INIT, { authorization: `Bearer ${key}` });
    expect(revoked.headers.get("www-authenticate")).toMatch(
      /error="invalid_token", error_description="key_revoked: This agent key has been revoked/,
    );
  });

  it("accepts the agent key in the header or in ?key=", async () => {
    const { key } = await agent();
    for (const inUrl of [false, true]) {
      const client = await connect(s.url, key, { inUrl });
      const res = await call(client, "get_balance");
      expect(res.isError, String(inUrl)).toBeFalsy();
      expect(res.structuredContent.wallet.agent_key.limit_cents).toBe(5000);
      await client.close();
    }
  });

  it("answers 401 with a Bearer challenge before any JSON-RPC for a missing, unknown or revoked key", async () => {
    const { owner, key, keyId } = await agent();
    await s.t.call("POST", `/wallet/keys/${keyId}/revoke`, { key: owner.key });
    const variants: Record<string, string>[] = [
      {},
      { authorization: "Bearer pak_000000000000000000000000000000000000000000" },
      { authorization: `Bearer ${key}` },
    ];
    for (const headers of variants) {
      const res = await rpc(s.url, INIT, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(res.body.detail).toBeTruthy();
      expect(res.body.jsonrpc).toBeUndefined();
      const revoked = headers.authorization === `Bearer ${key}`;
      expect(res.body.code).toBe(revoked ? "key_revoked" : "unauthorized");
    }
  });

  it("refuses a wallet key: 403 in the header (make an agent key), 400 in the URL", async () => {
    const { owner } = await agent();
    const header = await rpc(s.url, INIT, { authorization: `Bearer ${owner.key}` });
    expect(header.status).toBe(403);
    expect(header.body.detail).toMatch(/agent key with a spending limit/);
    expect(header.body.code).toBe("agent_key_required");
    const url = await rpc(s.url, INIT, {}, `?key=${owner.key}`);
    expect(url.status).toBe(400);
    expect(url.body.detail).toMatch(/never be put in a URL/);
    expect(url.body.code).toBe("key_in_url");
  });
});

describe("errors are tool results", () => {
  it("names the bad field, refuses NUL, and charges nothing", async () => {
    const { owner, key } = await agent();
    const client = await connect(s.url, key);
    const before = await ledgerCount(owner.walletId);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["quote_restore", { duration_sec: "long" }, /^duration_sec:/],
      ["create_restore", { duration_sec: 5 }, /^filename:/],
      ["make_clip", { prompt: "waves", size: "4k", content_type: "image/png" }, /^size:/],
      [
        "make_clip",
        { prompt: "wa\u0000ves", content_type: "image/png" },
        /^prompt: must not contain NUL/,
      ],
      ["get_restore", { job_id: "rj_x", wait_seconds: 99 }, /^wait_seconds:/],
      ["create_top_up_link", { amount_cents: 10 }, /^amount_cents:/],
      ["get_balance", { extra: 1 }, /extra/],
    ];
    for (const [tool, args, detail] of cases) {
      const body = refusal(await call(client, tool, args));
      expect(body.detail, tool).toMatch(detail);
      expect(body.code, tool).toBe("invalid_field");
      expect(body.request_id, tool).toMatch(/^req_/);
    }
    expect(await ledgerCount(owner.walletId)).toBe(before);
    await client.close();
  });

  it("refuses a prompt under the content rule with its code, charging nothing", async () => {
    const { owner, key } = await agent();
    const client = await connect(s.url, key);
    const res = await call(client, "make_clip", {
      prompt: "a naked woman on the beach",
      content_type: "image/png",
    });
    expect(refusal(res)).toMatchObject({ refused: "nudity", code: "refused" });
    expect(await ledgerCount(owner.walletId)).toBe(1);
    await client.close();
  });

  it("says over_limit for the key's limit, and needs_topup (with the tool that adds money) for the balance", async () => {
    const limited = await agent(10_000, 50);
    const c1 = await connect(s.url, limited.key);
    const over = await call(c1, "make_clip", {
      prompt: "waves",
      content_type: "image/png",
      size: "720p",
    });
    expect(refusal(over)).toMatchObject({ over_limit: true, code: "over_limit" });
    const poor = await agent(50, 5000);
    const c2 = await connect(s.url, poor.key);
    const broke = await call(c2, "make_clip", { prompt: "waves", content_type: "image/png" });
    expect(refusal(broke)).toMatchObject({ needs_topup: true, code: "needs_topup" });
    expect(refusal(broke).detail).toMatch(/create_top_up_link/);
    expect(refusal(broke).detail).not.toMatch(/POST \//);
    await c1.close();
    await c2.close();
  });

  it("hides another key's jobs (not found) and says USDC is off when it is", async () => {
    const a = await agent();
    const b = await agent();
    const ca = await connect(s.url, a.key);
    const cb = await connect(s.url, b.key);
    const made = await call(ca, "make_clip", { prompt: "waves", content_type: "image/png" });
    const created = await call(ca, "create_restore", {
      duration_sec: 10,
      filename: "a.mp4",
      content_type: "video/mp4",
      size: 1000,
    });
    for (const [tool, id] of [
      ["get_clip", made.structuredContent.job.id],
      ["start_clip", made.structuredContent.job.id],
      ["get_restore", created.structuredContent.job.id],
      ["start_restore", created.structuredContent.job.id],
      ["cancel_job", created.structuredContent.job.id],
      ["cancel_job", "nothing_here"],
    ]) {
      const res = await call(cb, tool as string, { job_id: id });
      expect(refusal(res).code, `${tool} ${id}`).toBe("not_found");
    }
    const usdc = await call(cb, "top_up_with_usdc", { amount_cents: 500 });
    expect(refusal(usdc)).toMatchObject({ code: "unavailable" });
    await ca.close();
    await cb.close();
  });
});

describe("idempotency_key", () => {
  it("makes a retried spending call charge once and return the first result", async () => {
    const { owner, key } = await agent();
    const client = await connect(s.url, key);
    const args = { prompt: "waves", content_type: "image/png", idempotency_key: "retry-1" };
    const racing = await Promise.all([
      call(client, "make_clip", args),
      call(client, "make_clip", args).catch(() => null),
    ]);
    // Either may win the race (the other replays it or is told the first is in progress).
    const first = racing.find((r) => r && !r.isError);
    const second = racing.find((r) => r !== first);
    expect(first, JSON.stringify(racing)).toBeTruthy();
    const again = await call(client, "make_clip", args);
    expect(again.structuredContent.job.id).toBe(first.structuredContent.job.id);
    const charges = await s.t.deps.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("wallet_id", "=", owner.walletId)
      .where("kind", "=", "charge")
      .execute();
    expect(charges).toHaveLength(1);
    // The racing second call either replayed the first or was told the first is in progress.
    if (second && !second.isError)
      expect(second.structuredContent.job.id).toBe(first.structuredContent.job.id);
    else if (second) expect(refusal(second).code).toMatch(/^(conflict|idempotency_in_flight)$/);
    const other = await call(client, "make_clip", { ...args, size: "720p" });
    expect(refusal(other).code).toMatch(/^(conflict|idempotency_key_reused)$/);
    await client.close();
  });
});

/**
 * The owner's agreement, enforced: `max_price_cents` on every spending call (REST and MCP), and
 * a key that must ask its owner (`ask_before_spending: true`) never spends on a call the owner
 * did not agree to — through an elicitation form for a 2026-07-28 client that declares it, and
 * otherwise by a refusal carrying the price, the question and the approval link (the owner
 * approves on kinora; max_price_cents is a cap, never a yes). Nothing is charged until a yes
 * arrives; a yes buys exactly what it was asked for, once.
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";
import { call, connect, type Json, refusal } from "./helpers.js";

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({
    features: apiOnlyFeatures(),
  });
});
afterAll(async () => {
  await s.close();
});

const CLIP = { prompt: "waves at dusk", content_type: "image/png" };
const QUESTION = 'Make a 5 s 480p clip: "waves at dusk" — $0.59 from your balance?';

/** A wallet with $50 and an agent key that must ask its owner (the API's default). */
async function askingKey() {
  const owner = await s.t.newWallet(5000);
  const agent = await s.t.newAgentKey(owner.key, 2000, { askBeforeSpending: true });
  return { owner, key: agent.key };
}

const balanceOf = async (walletKey: string) =>
  (await s.t.call("GET", "/wallet", { key: walletKey })).body.wallet.balance_cents as number;

/** A 2026-07-28 client that declares form elicitation and answers each form with `answer`. */
async function elicitingClient(
  key: string,
  answer: (message: string) => Json | Promise<Json>,
  seen: Json[] = [],
) {
  const client = new V2Client(
    { name: "kinora-test", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  client.setRequestHandler("elicitation/create", async (req) => {
    const params = req.params as Json;
    return answer(params.message as string);
  });
  const transport = new V2Transport(new URL(`${s.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (url, init) => {
      if (typeof init?.body === "string") seen.push({ url, init, body: JSON.parse(init.body) });
      return fetch(url, init);
    },
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

describe("max_price_cents", () => {
  it("refuses a price above it over REST, with the price, and charges nothing", async () => {
    const owner = await s.t.newWallet(5000);
    const body = {
      duration_sec: 95,
      quality: "enhanced",
      filename: "wedding.mp4",
      content_type: "video/mp4",
      size: 1000,
    };
    const high = await s.t.call("POST", "/cloud/jobs", {
      key: owner.key,
      body: { ...body, max_price_cents: 400 },
    });
    expect(high.status).toBe(402);
    expect(high.body).toMatchObject({
      code: "price_above_max",
      price_cents: 499,
      question: "Restore wedding.mp4, 1:35, Enhanced — $4.99 from your balance?",
    });
    expect(high.body.detail).toMatch(
      /costs \$4\.99, above max_price_cents 400; nothing was charged/,
    );
    expect(await balanceOf(owner.key)).toBe(5000);
    const ok = await s.t.call("POST", "/cloud/jobs", {
      key: owner.key,
      body: { ...body, max_price_cents: 499 },
    });
    expect(ok.status).toBe(200);
    expect(await balanceOf(owner.key)).toBe(5000 - 499);
  });

  it("never prices a video over a limit: the limit is the answer (found by the fuzzer: 2^53 s answered 500)", async () => {
    const owner = await s.t.newWallet(5000);
    for (const key of [owner.key, undefined]) {
      const res = await s.t.call("POST", "/cloud/jobs", {
        key,
        body: {
          duration_sec: 2 ** 53,
          quality: "enhanced",
          content_type: "video/mp4",
          size: 1000,
          max_price_cents: 272_482,
          ...(key ? {} : { email: "u847@example.com" }),
        },
      });
      expect(res.status, String(key)).toBe(422);
      expect(res.body).toMatchObject({ code: "over_a_limit" });
      expect(res.body.detail).toMatch(
        /^duration_sec: must be at most 172800 seconds \(48 hours\) on any server/,
      );
    }
    expect(await balanceOf(owner.key)).toBe(5000);
  });

  it("is a bounded integer: a bad value is a 400 naming the field", async () => {
    const owner = await s.t.newWallet(5000);
    for (const bad of [-1, 1.5, "59", 10_000_001]) {
      const res = await s.t.call("POST", "/motion/jobs", {
        key: owner.key,
        body: { ...CLIP, max_price_cents: bad },
      });
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.detail).toMatch(/^max_price_cents: /);
    }
    expect(await balanceOf(owner.key)).toBe(5000);
  });
});

describe("a key that must ask its owner", () => {
  it("is refused by a client without elicitation — with or without max_price_cents — until the owner approves on kinora", async () => {
    const { owner, key } = await askingKey();
    let approvalId: string | undefined;
    for (const kind of ["v2 2025-11-25", "sdk 1.32", "v2 2026-07-28"] as const) {
      const client = await connect(s.url, key, { client: kind });
      for (const args of [CLIP, { ...CLIP, max_price_cents: 59 }]) {
        const res = refusal(await call(client, "make_clip", args));
        expect(res, kind).toMatchObject({
          code: "agreement_required",
          price_cents: 59,
          question: QUESTION,
        });
        // One question for the one purchase, whichever client asks and whatever cap it sets.
        approvalId ??= res.approval_id;
        expect(res.approval_id).toBe(approvalId);
        expect(res.approval_url).toBe(`${s.url}/approve/${approvalId}`);
        expect(res.detail).toContain(res.approval_url);
        expect(res.detail).toContain("call this tool again with the same arguments");
      }
      await client.close();
    }
    expect(await balanceOf(owner.key)).toBe(5000);

    const client = await connect(s.url, key);
    const low = refusal(await call(client, "make_clip", { ...CLIP, max_price_cents: 50 }));
    expect(low).toMatchObject({ code: "price_above_max", price_cents: 59 });
    const yes = await s.t.call("POST", `/approvals/${approvalId}/decision`, {
      key: owner.key,
      body: { decision: "approve" },
    });
    expect(yes.status).toBe(200);
    const agreed = await call(client, "make_clip", { ...CLIP, max_price_cents: 59 });
    expect(agreed.isError).toBeFalsy();
    const again = await call(client, "make_clip", CLIP);
    expect(again.structuredContent.job.id).toBe(agreed.structuredContent.job.id);
    expect(await balanceOf(owner.key)).toBe(5000 - 59);
    await client.close();
  });

  it("asks through an elicitation form and spends once on the owner's yes", async () => {
    const { owner, key } = await askingKey();
    const asked: string[] = [];
    const client = await elicitingClient(key, async (message) => {
      asked.push(message);
      // Nothing is charged while the owner reads the question.
      expect(await balanceOf(owner.key)).toBe(5000);
      return { action: "accept", content: { agree: true } };
    });
    const res = await call(client, "make_clip", CLIP);
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent.job.id).toMatch(/^clip_|^mj_|^[a-z]+_/);
    expect(asked).toEqual([QUESTION]);
    expect(await balanceOf(owner.key)).toBe(5000 - 59);
    await client.close();
  });

  it("charges nothing when the owner declines", async () => {
    const { owner, key } = await askingKey();
    const client = await elicitingClient(key, () => ({ action: "decline" }));
    const res = refusal(await call(client, "make_clip", CLIP));
    expect(res).toMatchObject({ code: "agreement_required", price_cents: 59 });
    expect(res.detail).toMatch(/did not agree/);
    const unchecked = await elicitingClient(key, () => ({
      action: "accept",
      content: { agree: false },
    }));
    expect(refusal(await call(unchecked, "make_clip", CLIP)).code).toBe("agreement_required");
    expect(await balanceOf(owner.key)).toBe(5000);
    await client.close();
    await unchecked.close();
  });

  it("buys once per yes: the confirmed request sent again replays the first purchase", async () => {
    const { owner, key } = await askingKey();
    const seen: Json[] = [];
    const client = await elicitingClient(
      key,
      () => ({ action: "accept", content: { agree: true } }),
      seen,
    );
    const first = await call(client, "make_clip", CLIP);
    const confirmed = seen.find((r) => r.body.params?.requestState);
    expect(confirmed).toBeDefined();
    const again = await fetch(confirmed.url, {
      ...confirmed.init,
      body: JSON.stringify({ ...confirmed.body, id: 999 }),
    });
    const replay = (await again.json()) as Json;
    expect(replay.result.structuredContent.job.id).toBe(first.structuredContent.job.id);
    expect(await balanceOf(owner.key)).toBe(5000 - 59);
    await client.close();
  });

  it("never lets a yes buy something else, or serve another key", async () => {
    const { owner, key } = await askingKey();
    const seen: Json[] = [];
    const client = await elicitingClient(
      key,
      () => ({ action: "accept", content: { agree: true } }),
      seen,
    );
    await call(client, "make_clip", CLIP);
    const confirmed = seen.find((r) => r.body.params?.requestState);
    // The same yes with other arguments (the dearer size) asks again: nothing bought.
    const bigger = structuredClone(confirmed.body);
    bigger.params.arguments.size = "720p";
    bigger.id = 1000;
    const headers = new Headers(confirmed.init.headers);
    const asked = (await (
      await fetch(confirmed.url, { ...confirmed.init, headers, body: JSON.stringify(bigger) })
    ).json()) as Json;
    expect(asked.result?.resultType, JSON.stringify(asked)).toBe("input_required");
    expect(await balanceOf(owner.key)).toBe(5000 - 59);
    // Another key presenting it is refused before anything runs.
    const other = await askingKey();
    headers.set("authorization", `Bearer ${other.key}`);
    const stolen = await fetch(confirmed.url, {
      ...confirmed.init,
      headers,
      body: JSON.stringify({ ...confirmed.body, id: 1001 }),
    });
    const body = (await stolen.json()) as Json;
    expect(body.error?.code).toBe(-32602);
    expect(await balanceOf(other.owner.key)).toBe(5000);
    await client.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { moveClip } from "../../src/kinds/clips/services/moves.js";
import { balances, type ClipTestApp, createClipTestApp, makeImage } from "./helpers.js";

let t: ClipTestApp;
let image: Buffer;
beforeAll(async () => {
  t = await createClipTestApp({ noExecutor: true });
  image = await makeImage(320, 240);
});
afterAll(async () => {
  await t.close();
});

const create = (key: string, body: Record<string, unknown> = {}) =>
  t.call("POST", "/motion/jobs", {
    key,
    body: { prompt: "waves rolling in", content_type: "image/png", image_bytes: 1000, ...body },
  });

async function ledgerCount(walletId: string) {
  const rows = await t.deps.db
    .selectFrom("ledger_entries")
    .select("id")
    .where("wallet_id", "=", walletId)
    .execute();
  return rows.length;
}

describe("GET /motion/config and /motion/quote", () => {
  it("lists sizes with prices, limits and refusal codes", async () => {
    const res = await t.call("GET", "/motion/config");
    expect(res.status).toBe(200);
    expect(res.body.sizes).toEqual([
      { size: "480p", width: 854, height: 480, amount_cents: 59, display: "$0.59" },
      { size: "720p", width: 1280, height: 720, amount_cents: 99, display: "$0.99" },
    ]);
    expect(res.body).toMatchObject({
      seconds: [5],
      image_types: ["image/jpeg", "image/png", "image/webp"],
      image_max_bytes: 10 * 1024 * 1024,
      prompt_max_chars: 800,
      topup_cents: { min: 500, max: 20000 },
      usdc_topup_cents: { min: 100, max: 20000 },
      key_limit_cents: { min: 1, max: 100000 },
    });
    expect(Object.keys(res.body.refusal_codes).sort()).toEqual([
      "minor_safety",
      "nudity",
      "sexual",
    ]);
  });

  it("quotes a size and refuses an unknown one", async () => {
    expect((await t.call("GET", "/motion/quote?size=720p")).body).toEqual({
      size: "720p",
      amount_cents: 99,
      display: "$0.99",
    });
    expect((await t.call("GET", "/motion/quote")).body.amount_cents).toBe(59);
    const bad = await t.call("GET", "/motion/quote?size=1080p");
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/size/);
  });
});

describe("POST /motion/jobs", () => {
  it("charges, returns an upload link and the wallet after the charge, and stores a chosen seed", async () => {
    const owner = await t.newWallet(1000);
    const agent = await t.newAgentKey(owner.key, 100);
    const res = await create(agent.key, { size: "720p", loop: true });
    expect(res.status).toBe(200);
    expect(res.body.job).toMatchObject({
      status: "awaiting_upload",
      size: "720p",
      amount_cents: 99,
      loop: true,
    });
    expect(res.body.job.id).toMatch(/^clip_[0-9A-Za-z]{20,}$/);
    expect(Number.isInteger(res.body.job.seed)).toBe(true);
    expect(res.body.upload_url).toMatch(/^http/);
    const headers = Object.fromEntries(
      Object.entries(res.body.upload_headers).map(([k, v]) => [k.toLowerCase(), v]),
    );
    expect(headers["content-type"]).toBe("image/png");
    expect(res.body.wallet.balance_cents).toBe(901);
    expect(res.body.wallet.agent_key.remaining_cents).toBe(1);
    const over = await create(agent.key);
    expect(over.status).toBe(402);
    expect(over.body.over_limit).toBe(true);
    const poor = await t.newWallet(10);
    const topup = await create(poor.key);
    expect(topup.status).toBe(402);
    expect(topup.body.needs_topup).toBe(true);
  });

  it("answers 400 naming the field for bad input, and changes nothing", async () => {
    const { key, walletId } = await t.newWallet(1000);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ prompt: "   " }, /prompt/],
      [{ prompt: "x".repeat(801) }, /prompt/],
      [{ prompt: undefined }, /prompt/],
      [{ size: "1080p" }, /size/],
      [{ seconds: 10 }, /seconds/],
      [{ content_type: "image/gif" }, /content_type/],
      [{ content_type: undefined }, /content_type/],
      [{ image_bytes: 0 }, /image_bytes/],
      [{ image_bytes: 10 * 1024 * 1024 + 1 }, /image_bytes/],
      [{ loop: "yes" }, /loop/],
      [{ seed: -1 }, /seed/],
      [{ seed: 2 ** 31 }, /seed/],
      [{ seed: 1.5 }, /seed/],
      [{ image_url: "ftp://example.com/a.png" }, /image_url/],
      [{ image_url: `https://example.com/${"a".repeat(2050)}` }, /image_url/],
      [{ colour: "red" }, /colour/],
    ];
    for (const [patch, field] of cases) {
      const res = await create(key, patch);
      expect(res.status, JSON.stringify(patch).slice(0, 80)).toBe(400);
      expect(res.body.detail).toMatch(field);
    }
    expect(await balances(t, key)).toBe(1000);
    expect(await ledgerCount(walletId)).toBe(1);
    const clips = await t.call("GET", "/motion/jobs", { key });
    expect(clips.body.clips).toEqual([]);
  });

  it("refuses a prompt that breaks the content rule with 422 and charges nothing", async () => {
    const { key, walletId } = await t.newWallet(1000);
    const res = await create(key, { prompt: "a naked woman on the beach" });
    expect(res.status).toBe(422);
    expect(res.body.refused).toBe("nudity");
    expect(res.body.detail).toMatch(/nud/);
    expect(await balances(t, key)).toBe(1000);
    expect(await ledgerCount(walletId)).toBe(1);
  });
});

describe("Idempotency-Key on POST /motion/jobs", () => {
  it("replays the first clip for a repeated key and charges once", async () => {
    const { key } = await t.newWallet(1000);
    const headers = { "idempotency-key": "clip-retry-1" };
    const body = { prompt: "fog over hills", content_type: "image/png", image_bytes: 10 };
    const a = await t.call("POST", "/motion/jobs", { key, body, headers });
    const b = await t.call("POST", "/motion/jobs", { key, body, headers });
    expect(b.status).toBe(200);
    expect(b.body.job.id).toBe(a.body.job.id);
    expect(await balances(t, key)).toBe(941);
  });
});

describe("listing and visibility", () => {
  it("lists up to 40 clips, newest first; an agent key sees only its own", async () => {
    const owner = await t.newWallet(10_000);
    const agent = await t.newAgentKey(owner.key, 1000);
    const ids: string[] = [];
    for (let i = 0; i < 45; i++) {
      t.clock.advance(1000);
      const res = await create(i % 5 === 0 ? agent.key : owner.key);
      expect(res.status).toBe(200);
      ids.push(res.body.job.id);
    }
    const all = await t.call("GET", "/motion/jobs", { key: owner.key });
    expect(all.body.clips).toHaveLength(40);
    expect(all.body.clips.map((c: { id: string }) => c.id)).toEqual(ids.slice(5).reverse());
    const own = await t.call("GET", "/motion/jobs", { key: agent.key });
    expect(own.body.clips.map((c: { id: string }) => c.id)).toEqual(
      ids.filter((_, i) => i % 5 === 0).reverse(),
    );
  });

  it("hides another agent key's and another wallet's clip (404)", async () => {
    const owner = await t.newWallet(1000);
    const a = await t.newAgentKey(owner.key, 500);
    const b = await t.newAgentKey(owner.key, 500);
    const stranger = await t.newWallet(1000);
    const clip = (await create(a.key)).body.job.id as string;
    expect((await t.call("GET", `/motion/jobs/${clip}`, { key: a.key })).status).toBe(200);
    expect((await t.call("GET", `/motion/jobs/${clip}`, { key: owner.key })).status).toBe(200);
    for (const key of [b.key, stranger.key]) {
      for (const [method, path] of [
        ["GET", `/motion/jobs/${clip}`],
        ["POST", `/motion/jobs/${clip}/start`],
        ["POST", `/motion/jobs/${clip}/cancel`],
      ] as const) {
        const res = await t.call(method, path, { key });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect(await balances(t, owner.key)).toBe(941);
  });
});

describe("start and cancel", () => {
  it("refuses to start before the upload; start is idempotent; a queued clip cannot be cancelled", async () => {
    const { key } = await t.newWallet(1000);
    const clip = await create(key, { content_type: "image/jpeg", image_bytes: image.length });
    const early = await t.call("POST", `/motion/jobs/${clip.body.job.id}/start`, { key });
    expect(early.status).toBe(400);
    expect(early.body.detail).toMatch(/not been uploaded/);
    expect(early.body.code).toBe("not_uploaded");
    const put = await t.fetchUrl(clip.body.upload_url, {
      method: "PUT",
      headers: { ...clip.body.upload_headers },
      body: new Uint8Array(image),
    });
    expect(put.status).toBeLessThan(300);
    const arrived = await t.call("POST", `/motion/jobs/${clip.body.job.id}/cancel`, { key });
    expect(arrived.status).toBe(409);
    expect(arrived.body.code).toBe("already_uploaded");
    const started = await t.call("POST", `/motion/jobs/${clip.body.job.id}/start`, { key });
    expect(started.body.job.status).toBe("queued");
    const again = await t.call("POST", `/motion/jobs/${clip.body.job.id}/start`, { key });
    expect(again.body.job.status).toBe("queued");
    const cancel = await t.call("POST", `/motion/jobs/${clip.body.job.id}/cancel`, { key });
    expect(cancel.status).toBe(409);
    expect(cancel.body.detail).toMatch(/queued/);
    expect(cancel.body.code).toBe("wrong_state");
  });

  it("cancels and refunds once; cancelling again returns it; starting it is a 409", async () => {
    const owner = await t.newWallet(1000);
    const agent = await t.newAgentKey(owner.key, 100);
    const clip = (await create(agent.key)).body.job.id as string;
    const first = await t.call("POST", `/motion/jobs/${clip}/cancel`, { key: agent.key });
    expect(first.body.job.status).toBe("cancelled");
    const second = await t.call("POST", `/motion/jobs/${clip}/cancel`, { key: agent.key });
    expect(second.status).toBe(200);
    expect(second.body.job.status).toBe("cancelled");
    expect(await balances(t, owner.key)).toBe(1000);
    const asAgent = await t.call("GET", "/wallet", { key: agent.key });
    expect(asAgent.body.wallet.agent_key.remaining_cents).toBe(100);
    const start = await t.call("POST", `/motion/jobs/${clip}/start`, { key: agent.key });
    expect(start.status).toBe(409);
    expect(start.body.code).toBe("wrong_state");
  });

  it("lets exactly one of a racing start and cancel win, with the money right", async () => {
    const { key, walletId } = await t.newWallet(10_000);
    let starts = 0;
    for (let i = 0; i < 10; i++) {
      const id = (await create(key)).body.job.id as string;
      const now = t.clock.now();
      const [s, c] = await Promise.all([
        moveClip(t.deps.db, id, "start", now, { queued_at: now }),
        moveClip(t.deps.db, id, "cancel", now),
      ]);
      expect(Boolean(s) !== Boolean(c)).toBe(true);
      if (s) starts++;
    }
    const refunds = await t.deps.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("wallet_id", "=", walletId)
      .where("kind", "=", "refund")
      .execute();
    expect(refunds).toHaveLength(10 - starts);
    expect(await balances(t, key)).toBe(10_000 - 59 * starts);
  });
});

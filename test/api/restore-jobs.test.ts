import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDbWorkSource } from "../../src/jobs/work-source.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { createTestApp, type TestApp } from "../app.js";
import { balanceOf, jobBody, makeVideo, upload } from "../restore/helpers.js";

let t: TestApp;
let video: { path: string; sizeBytes: number };
beforeAll(async () => {
  t = await createTestApp({ features: [restoreFeature({ noExecutor: true })] });
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-rj-")), 1);
});
afterAll(async () => {
  await t.close();
});

const jobCount = async () =>
  Number(
    (
      await t.deps.db
        .selectFrom("restore_jobs")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("POST /cloud/jobs", () => {
  it("with a key: charges now, awaits the upload and says what to do next", async () => {
    const { key, walletId } = await t.newWallet(1000);
    const res = await t.call("POST", "/cloud/jobs", { key, body: jobBody(video) });
    expect(res.status).toBe(200);
    expect(res.body.job).toMatchObject({
      status: "awaiting_upload",
      quality: "faithful",
      amount_cents: 299,
      paid_from_balance: true,
      download_url: null,
    });
    expect(res.body.job.id).toMatch(/^rj_[0-9A-Za-z]{20,}$/);
    expect(res.body.display_price).toBe("$2.99");
    expect(res.body.next).toContain(`/cloud/jobs/${res.body.job.id}/start`);
    expect(res.body.upload_headers["content-type"] ?? res.body.upload_headers["Content-Type"]).toBe(
      "video/mp4",
    );
    expect(res.body.wallet.balance_cents).toBe(701);
    expect(await balanceOf(t, walletId)).toBe(701);
  });

  it("without a key: needs an email, then waits for payment", async () => {
    const before = await jobCount();
    const missing = await t.call("POST", "/cloud/jobs", { body: jobBody(video) });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toMatch(/^email:/);
    expect(await jobCount()).toBe(before);
    const res = await t.call("POST", "/cloud/jobs", {
      body: jobBody(video, { email: "me@example.com" }),
    });
    expect(res.status).toBe(200);
    expect(res.body.job.status).toBe("pending_payment");
    expect(res.body.paid_from_balance).toBe(false);
    expect(res.body.wallet).toBeUndefined();
    expect(res.body.next).toContain("/checkout");
  });

  it("refuses bad input with 400 naming the field, over a limit with 422, and stores nothing", async () => {
    const { key } = await t.newWallet(100_000);
    const before = await jobCount();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ content_type: "image/png" }, 400, "content_type"],
      [{ size: "big" }, 400, "size"],
      [{ filename: "" }, 400, "filename"],
      [{ pay_with: "gold" }, 400, "pay_with"],
      [{ email: "nope" }, 400, "email"],
      [{ duration_sec: -1 }, 400, "duration_sec"],
      [{ duration_sec: 0 }, 400, "duration_sec"],
      [{ width: 0 }, 400, "width"],
      [{ size: 0 }, 400, "size"],
      [{ size: 50 * 1024 ** 3 + 1 }, 422, "size"],
      [{ size: 5 * 1024 ** 4 + 1 }, 422, "size"],
      [{ width: 9000 }, 422, "width"],
    ];
    for (const [extra, status, field] of cases) {
      const res = await t.call("POST", "/cloud/jobs", { key, body: jobBody(video, extra) });
      expect(res.status, JSON.stringify(extra)).toBe(status);
      expect(res.body.detail, JSON.stringify(extra)).toMatch(new RegExp(`^${field}:`));
    }
    expect(await jobCount()).toBe(before);
  });

  it("keeps what the customer says of the tape's fade, shows it, and hands it to the worker", async () => {
    const { key } = await t.newWallet(10_000);
    const plain = await t.call("POST", "/cloud/jobs", { key, body: jobBody(video) });
    expect(plain.body.job.fade).toBe("auto");
    const told = await t.call("POST", "/cloud/jobs", {
      key,
      body: jobBody(video, { quality: "Studio Max", fade: "faded" }),
    });
    expect(told.status).toBe(200);
    expect(told.body.job).toMatchObject({ quality: "enhanced_max", fade: "faded" });
    const read = await t.call("GET", `/cloud/jobs/${told.body.job.id}`, { key });
    expect(read.body.job.fade).toBe("faded");
    // Uploaded and started, the job reaches a worker with the hint in its params.
    expect(await upload(t, told.body, video.path)).toBeLessThan(300);
    const started = await t.call("POST", `/cloud/jobs/${told.body.job.id}/start`, { key });
    expect(started.status).toBe(200);
    const source = await createDbWorkSource(
      t.database,
      t.features.flatMap((f) => f.queues ?? []),
      { leaseMs: 60_000, pollMs: 200 },
    );
    try {
      const claimed = await source.claim(["restore"], "test-fade", 0);
      expect(claimed?.jobId).toBe(told.body.job.id);
      expect(claimed?.params).toMatchObject({ quality: "enhanced_max", fade: "faded" });
    } finally {
      await source.close();
    }
  });

  it("refuses a fade hint Standard would ignore, or an unknown one, and stores nothing", async () => {
    const { key, walletId } = await t.newWallet(10_000);
    const before = await jobCount();
    const standard = await t.call("POST", "/cloud/jobs", {
      key,
      body: jobBody(video, { quality: "faithful", fade: "not_faded" }),
    });
    expect(standard.status).toBe(400);
    expect(standard.body.detail).toMatch(/^fade: cannot be 'not_faded' with quality faithful/);
    expect(standard.body.detail).toMatch(/choose enhanced or enhanced_max/);
    const unknown = await t.call("POST", "/cloud/jobs", {
      key,
      body: jobBody(video, { quality: "enhanced", fade: "very" }),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toMatch(/^fade: must be auto, faded, not_faded/);
    expect(await jobCount()).toBe(before);
    expect(await balanceOf(t, walletId)).toBe(10_000);
  });

  it("answers 402 needs_topup / over_limit and stores no job", async () => {
    const before = await jobCount();
    const poor = await t.newWallet(100);
    const res = await t.call("POST", "/cloud/jobs", { key: poor.key, body: jobBody(video) });
    expect(res.status).toBe(402);
    expect(res.body.needs_topup).toBe(true);
    const rich = await t.newWallet(10_000);
    const agent = await t.newAgentKey(rich.key, 100);
    const limited = await t.call("POST", "/cloud/jobs", { key: agent.key, body: jobBody(video) });
    expect(limited.status).toBe(402);
    expect(limited.body.over_limit).toBe(true);
    expect(await jobCount()).toBe(before);
    expect(await balanceOf(t, rich.walletId)).toBe(10_000);
  });
});

describe("start", () => {
  it("refuses a missing upload with 400 saying what to do, then starts once uploaded", async () => {
    const { key, walletId } = await t.newWallet(1000);
    const created = (await t.call("POST", "/cloud/jobs", { key, body: jobBody(video) })).body;
    const early = await t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
    expect(early.status).toBe(400);
    expect(early.body.detail).toMatch(/not been uploaded/);
    expect(early.body.code).toBe("not_uploaded");
    expect(await upload(t, created, video.path)).toBeLessThan(300);
    const started = await t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
    expect(started.status).toBe(200);
    expect(started.body.job.status).toBe("processing");
    const again = await t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
    expect(again.status).toBe(200);
    expect(again.body.job.status).toBe("processing");
    // A started restore may be cancelled by its owner too: the price goes back once.
    const paid = await balanceOf(t, walletId);
    const cancel = await t.call("POST", `/cloud/jobs/${created.job.id}/cancel`, { key });
    expect(cancel.status).toBe(200);
    expect(cancel.body.job.status).toBe("cancelled");
    const twice = await t.call("POST", `/cloud/jobs/${created.job.id}/cancel`, { key });
    expect(twice.status).toBe(200);
    expect(await balanceOf(t, walletId)).toBe(paid + created.job.amount_cents);
  });

  it("refuses tampered, wrong-size and wrong-type uploads; nothing is stored", async () => {
    const { key } = await t.newWallet(1000);
    const created = (await t.call("POST", "/cloud/jobs", { key, body: jobBody(video) })).body;
    // Flip one character of the signed part of the URL (path token or query signature).
    const u: string = created.upload_url;
    const at = u.length - 3;
    const tampered = `${u.slice(0, at)}${u[at] === "A" ? "B" : "A"}${u.slice(at + 1)}`;
    const file = Buffer.alloc(video.sizeBytes, 1);
    const put = (u: string, headers: Record<string, string>, body: Buffer) =>
      t.fetchUrl(u, { method: "PUT", headers, body: new Uint8Array(body) }).then((r) => r.status);
    expect(await put(tampered.toString(), created.upload_headers, file)).toBeGreaterThanOrEqual(
      400,
    );
    expect(
      await put(
        created.upload_url,
        { ...created.upload_headers, "content-type": "video/webm" },
        file,
      ),
    ).toBeGreaterThanOrEqual(400);
    expect(
      await put(created.upload_url, created.upload_headers, file.subarray(1)),
    ).toBeGreaterThanOrEqual(400);
    const start = await t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
    expect(start.status).toBe(400);
    expect(start.body.code).toBe("not_uploaded");
    expect(await t.deps.storage.head(`restore/${created.job.id}/input`)).toBeNull();
  });

  it("refuses an expired upload link", async () => {
    const { key } = await t.newWallet(1000);
    const created = (await t.call("POST", "/cloud/jobs", { key, body: jobBody(video) })).body;
    t.clock.advance(25 * 3600_000);
    try {
      expect(await upload(t, created, video.path)).toBeGreaterThanOrEqual(400);
    } finally {
      t.clock.advance(-25 * 3600_000);
    }
    const start = await t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
    expect(start.status).toBe(400);
  });
});

describe("ownership", () => {
  it("hides another key's job (404 on start and cancel); the wallet key sees its agents' jobs", async () => {
    const owner = await t.newWallet(5000);
    const a = await t.newAgentKey(owner.key, 1000);
    const b = await t.newAgentKey(owner.key, 1000);
    const other = await t.newWallet(5000);
    const created = (await t.call("POST", "/cloud/jobs", { key: a.key, body: jobBody(video) }))
      .body;
    const id = created.job.id;
    for (const key of [b.key, other.key]) {
      expect((await t.call("POST", `/cloud/jobs/${id}/start`, { key })).status).toBe(404);
      expect((await t.call("POST", `/cloud/jobs/${id}/cancel`, { key })).status).toBe(404);
    }
    const cancel = await t.call("POST", `/cloud/jobs/${id}/cancel`, { key: owner.key });
    expect(cancel.status).toBe(200);
    expect(cancel.body.job.status).toBe("cancelled");
  });
});

describe("cancel", () => {
  it("refunds balance and key allowance once, even when many cancels race", async () => {
    const owner = await t.newWallet(1000);
    const agent = await t.newAgentKey(owner.key, 500);
    const created = (await t.call("POST", "/cloud/jobs", { key: agent.key, body: jobBody(video) }))
      .body;
    const id = created.job.id;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.call("POST", `/cloud/jobs/${id}/${i % 2 ? "cancel" : "start"}`, { key: agent.key }),
      ),
    );
    const cancels = results.filter((_, i) => i % 2);
    expect(cancels.every((r) => r.status === 200 && r.body.job.status === "cancelled")).toBe(true);
    expect(await balanceOf(t, owner.walletId)).toBe(1000);
    const wallet = await t.call("GET", "/wallet", { key: agent.key });
    expect(wallet.body.wallet.agent_key.remaining_cents).toBe(500);
    const refunds = await t.deps.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("job_id", "=", id)
      .where("kind", "=", "refund")
      .execute();
    expect(refunds).toHaveLength(1);
    const view = await t.call("GET", `/cloud/jobs/${id}`);
    expect(view.body.job.error).toMatch(/refunded/);
  });

  it("refuses to cancel a checkout job (409) and an unknown job (404)", async () => {
    const { key } = await t.newWallet(1000);
    const res = await t.call("POST", "/cloud/jobs", {
      key,
      body: jobBody(video, { pay_with: "checkout" }),
    });
    expect(res.body.job.status).toBe("pending_payment");
    const cancel = await t.call("POST", `/cloud/jobs/${res.body.job.id}/cancel`, { key });
    expect(cancel.status).toBe(409);
    expect(cancel.body.code).toBe("paid_by_checkout");
    const start = await t.call("POST", `/cloud/jobs/${res.body.job.id}/start`, { key });
    expect(start.status).toBe(409);
    expect(start.body.code).toBe("paid_by_checkout");
    expect((await t.call("POST", "/cloud/jobs/rj_nope/cancel", { key })).status).toBe(404);
    expect((await t.call("GET", "/cloud/jobs/rj_nope")).status).toBe(404);
  });
});
